export type DaemonMode = 'development' | 'production';

export interface HealthResponse {
  status: 'ok';
  version: string;
  mode: DaemonMode;
  uptimeMs: number;
  timestamp: string;
}
