// The toolbar popup: kept small so it opens fast. It imports only what a quick tool run needs.
import PopupApp from '../../components/popup/PopupApp.vue';
import { extensionPlatform } from '../../lib/extension-platform';
import { mountApp } from '../../lib/mount';

mountApp(PopupApp, extensionPlatform());
