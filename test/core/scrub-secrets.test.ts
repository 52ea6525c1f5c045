import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REDACTED, scrubSecrets } from '../../src/core/scrub-secrets.ts';

describe('scrubSecrets', () => {
  it('replaces a secret plain and URL-encoded with one placeholder', () => {
    const token = '123:AB/C';
    assert.equal(
      scrubSecrets(`x ${token} y ${encodeURIComponent(token)}`, [token]),
      `x ${REDACTED} y ${REDACTED}`,
    );
    assert.equal(REDACTED, '[redacted]');
  });

  it('removes the longest secret first, so one inside another leaves nothing behind', () => {
    assert.equal(scrubSecrets('key=abcd-efgh-1234', ['abcd', 'abcd-efgh-1234']), `key=${REDACTED}`);
  });

  it('skips missing and very short secrets, which would garble the text', () => {
    assert.equal(scrubSecrets('a b c', [undefined, 'a', '']), 'a b c');
  });

  it('also replaces every match of the token patterns given', () => {
    assert.equal(
      scrubSecrets('bad xoxb-1-2-abc and xapp-9 here', [], [/\b(?:xox[a-z]|xapp)-[A-Za-z0-9-]+/g]),
      `bad ${REDACTED} and ${REDACTED} here`,
    );
  });
});
