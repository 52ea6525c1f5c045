// zod's standard issue texts said in words, for every error a person reads (request fields, chain
// node configurations).

/** zod's standard texts ("Too small: expected string to have >=1 characters") said in words. */
const WORDINGS: Array<[RegExp, (...groups: string[]) => string]> = [
  [/^Too small: expected string to have >=1 characters?$/, () => 'must not be empty'],
  [/^Too small: expected string to have >=(\d+) characters$/, (n) => `must be at least ${n} characters long`],
  [/^Too big: expected string to have <=(\d+) characters$/, (n) => `must be at most ${n} characters long`],
  [/^Too small: expected array to have >=1 items?$/, () => 'must not be empty'],
  [/^Too small: expected array to have >=(\d+) items$/, (n) => `must have at least ${n} items`],
  [/^Too big: expected array to have <=(\d+) items$/, (n) => `must have at most ${n} items`],
  [/^Too small: expected number to be >=(\S+)$/, (n) => `must be at least ${n}`],
  [/^Too small: expected number to be >(\S+)$/, (n) => `must be more than ${n}`],
  [/^Too big: expected number to be <=(\S+)$/, (n) => `must be at most ${n}`],
  [/^Too big: expected number to be <(\S+)$/, (n) => `must be less than ${n}`],
  [/^Invalid option: expected one of (.+)$/, (list) => `must be one of ${list.split('|').join(', ')}`],
  [/^Invalid input: expected (\w+), received (\w+)$/, (want, got) => `must be ${article(want)} (got ${got})`],
  [/^Invalid input: expected (\w+)$/, (want) => `must be ${article(want)}`],
  [
    /^Unrecognized keys?: (.+)$/,
    (keys) => `${keys} ${keys.includes(',') ? 'are not known fields' : 'is not a known field'}`,
  ],
];

function article(type: string): string {
  const noun = type === 'int' ? 'whole number' : type;
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

export function inWords(message: string): string {
  for (const [pattern, say] of WORDINGS) {
    const match = pattern.exec(message);
    if (match) return say(...match.slice(1));
  }
  return message.replace(/^Invalid input: /, '');
}
