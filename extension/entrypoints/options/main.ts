import OptionsApp from '../../components/OptionsApp.vue';
import { extensionPlatform } from '../../lib/extension-platform';
import { mountApp } from '../../lib/mount';

mountApp(OptionsApp, extensionPlatform());
