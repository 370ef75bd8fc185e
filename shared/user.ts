/**
 * SPEC part 5 for a shared daemon: the user a bearer token belongs to, as the cloud backend names them,
 * and the OpenID provider the front end signs users in with.
 */
export interface SignedInUser {
  /** The backend's stable id of the user. */
  sub: string;
  name?: string;
  email?: string;
}

/** `GET /api/mcp/user`: who the caller is; `null` for the session token. */
export interface UserResponse {
  user: SignedInUser | null;
}

/** In `GET /api/mcp/health` when the daemon accepts user tokens and knows where users sign in. */
export interface SignInConfig {
  issuer: string;
  clientId: string;
}
