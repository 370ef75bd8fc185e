import InspectorApp from '../../app/InspectorApp.vue';
import { applyDevtoolsTheme, extensionPlatform } from '../../app/extension-platform';
import { mountApp } from '../../app/mount';

applyDevtoolsTheme();
mountApp(InspectorApp, extensionPlatform());
