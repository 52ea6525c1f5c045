// Lua scripts that act only while the caller still owns a key (its value is the caller's token), so
// an instance whose lock or lease already expired can never delete or extend another's.

/** KEYS[1] the key, ARGV[1] the token: deletes the key if it still holds the token. */
export const RELEASE_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/** KEYS[1] the key, ARGV[1] the token, ARGV[2] the new time to live in ms. */
export const RENEW_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
