import type { SignInConfig } from './user.ts';

export type DaemonMode = 'development' | 'production';

export interface HealthResponse {
  status: 'ok';
  version: string;
  mode: DaemonMode;
  uptimeMs: number;
  timestamp: string;
  /** Present only when the daemon accepts user tokens (CLOUD_BACKEND_HTTP_URL) and has an OpenID provider. */
  signIn?: SignInConfig;
}
