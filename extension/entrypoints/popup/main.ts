// The toolbar popup: kept small so it opens fast. It imports only what a quick tool run needs.
import PopupApp from '../../popup/PopupApp.vue';
import { extensionPlatform } from '../../app/extension-platform';
import { mountApp } from '../../app/mount';

mountApp(PopupApp, extensionPlatform());
