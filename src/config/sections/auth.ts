import { Type } from 'typebox';

const HEX64 = '^[0-9a-f]{64}$';

export const ApiToken = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'Who holds the token (logged with each refused request, never the token).' }),
    scope: Type.Union([Type.Literal('read'), Type.Literal('write'), Type.Literal('admin')], {
      description: 'read: GET outside /admin; write: read + submitting images and sessions; admin: everything.',
    }),
    token_sha256: Type.Optional(Type.String({ pattern: HEX64, description: 'Hex SHA-256 of the token (preferred: the file then holds no secret).' })),
    token: Type.Optional(Type.String({ minLength: 16, description: 'The token itself (at least 16 characters); prefer token_sha256.' })),
  },
  { additionalProperties: false },
);

/** Optional bearer-token access control. The spec's service is open; it stays so while tokens is empty. */
export const AuthSection = Type.Object(
  {
    tokens: Type.Array(ApiToken, {
      default: [],
      description: 'API tokens, each {name, scope, token_sha256 | token}; empty (the default) leaves the API open. Env: a JSON array. See docs/security.md.',
    }),
  },
  { additionalProperties: false, default: {} },
);

/** Checks the schema cannot express: one token form per entry, unique names and tokens. */
export function authProblems(tokens: { name: string; token?: string; token_sha256?: string }[]): { path: string; value: string; message: string }[] {
  const out: { path: string; value: string; message: string }[] = [];
  const names = new Set<string>();
  tokens.forEach((t, i) => {
    const path = `auth.tokens.${i}`;
    if ((t.token === undefined) === (t.token_sha256 === undefined)) out.push({ path, value: JSON.stringify(t.name), message: 'give exactly one of token or token_sha256' });
    if (names.has(t.name)) out.push({ path: `${path}.name`, value: JSON.stringify(t.name), message: 'token names must be unique' });
    names.add(t.name);
  });
  return out;
}
