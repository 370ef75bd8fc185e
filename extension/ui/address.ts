/**
 * A web address as the browser will go to it, split where the reader should look first: the origin it
 * goes to, then the rest (path, query, fragment) as the address bar writes it, percent-encoded, so a
 * hidden character cannot make it read as another. Text before an `@` (a user name and password) comes
 * apart: `https://accounts.example.com@evil.test/` goes to evil.test, whatever it starts with.
 */
export interface AddressParts {
  origin: string;
  rest: string;
  /** The user name and password the address carries, as written in it; '' for none. */
  userinfo: string;
}

export function addressParts(address: string): AddressParts {
  const url = new URL(address);
  const userinfo =
    url.username || url.password ? `${url.username}${url.password ? `:${url.password}` : ''}` : '';
  return { origin: url.origin, rest: `${url.pathname}${url.search}${url.hash}`, userinfo };
}
