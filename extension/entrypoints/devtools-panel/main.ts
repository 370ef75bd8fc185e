import InspectorApp from '../../components/InspectorApp.vue';
import { applyDevtoolsTheme, extensionPlatform } from '../../lib/extension-platform';
import { mountApp } from '../../lib/mount';

applyDevtoolsTheme();
mountApp(InspectorApp, extensionPlatform());
