import OptionsApp from '../../app/OptionsApp.vue';
import { extensionPlatform } from '../../app/extension-platform';
import { mountApp } from '../../app/mount';

mountApp(OptionsApp, extensionPlatform());
