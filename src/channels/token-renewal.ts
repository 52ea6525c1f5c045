// A platform may stop accepting an access token before its stated expiry (the secret was rotated,
// the token revoked). A request refused for that reason is made once more with a fresh token; the
// refused one is forgotten only if the cache still holds it (a concurrent request may have renewed it).

/** Runs `run` with the current token, and once more with a fresh one when `refused` says so. */
export async function withTokenRenewal<K, Token, T>(
  cache: { tokens: Map<K, Token>; key: K; current: () => Promise<Token> },
  refused: (error: unknown) => boolean,
  run: (token: Token) => Promise<T>,
): Promise<T> {
  const stale = await cache.current();
  try {
    return await run(stale);
  } catch (error) {
    if (!refused(error)) throw error;
    if (cache.tokens.get(cache.key) === stale) cache.tokens.delete(cache.key);
    return run(await cache.current());
  }
}
