// A seeded generator of memory notes for the memory benchmarks: users with facts (city, drink,
// employer, pet), later updates of some of them, filler lines, and questions, including ones about
// people never mentioned. The same seed gives the same corpus.

export interface Fact {
  user: string;
  attribute: 'city' | 'drink' | 'employer' | 'pet';
  value: string;
  path: string;
  line: number;
  /** Replaced by a later fact of the same user and attribute. */
  superseded: boolean;
}

export interface Question {
  text: string;
  /** The newest fact answering it; undefined for a person never mentioned. */
  evidence?: Fact;
  /** The fact it superseded, if any. */
  older?: Fact;
}

export interface Corpus {
  files: Map<string, string[]>;
  facts: Fact[];
  questions: Question[];
  lines: number;
}

export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value ^= value + Math.imul(value ^ (value >>> 7), 61 | value);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST = [
  'Alice',
  'Bruno',
  'Chen',
  'Dara',
  'Emeka',
  'Farah',
  'Goran',
  'Hana',
  'Ivan',
  'Jun',
  'Kofi',
  'Lena',
  'Mateo',
  'Nadia',
  'Omar',
  'Priya',
  'Quinn',
  'Rosa',
  'Sven',
  'Tariq',
  'Uma',
  'Vera',
  'Wim',
  'Xenia',
  'Yusuf',
  'Zara',
];
const LAST = [
  'Adler',
  'Banda',
  'Costa',
  'Duval',
  'Eklund',
  'Fischer',
  'Garcia',
  'Haddad',
  'Ito',
  'Jansen',
  'Kowalski',
  'Lindqvist',
  'Moreau',
  'Novak',
  'Okafor',
  'Petrov',
  'Quist',
  'Rossi',
  'Sato',
  'Tanaka',
];
const VALUES = {
  city: [
    'Lisbon',
    'Porto',
    'Nairobi',
    'Osaka',
    'Quito',
    'Tallinn',
    'Hanoi',
    'Lagos',
    'Bergen',
    'Cusco',
    'Dakar',
    'Gdansk',
  ],
  drink: [
    'oolong tea',
    'espresso',
    'mint lemonade',
    'chai latte',
    'cold brew',
    'hibiscus tea',
    'yerba mate',
    'kefir',
  ],
  employer: [
    'Acme Logistics',
    'Blue Harbor Bank',
    'Cedar Labs',
    'Delta Foods',
    'Echo Media',
    'Fjord Energy',
    'Granite Health',
  ],
  pet: ['a beagle', 'two cats', 'a parrot', 'a tortoise', 'a greyhound', 'three goldfish', 'a ferret'],
};
const SAY: Record<Fact['attribute'], Array<(user: string, value: string) => string>> = {
  city: [(u, v) => `${u} lives in ${v}.`, (u, v) => `${u} told me they live in ${v} these days.`],
  drink: [(u, v) => `${u}'s favourite drink is ${v}.`, (u, v) => `${u} says the favourite drink is ${v}.`],
  employer: [(u, v) => `${u} works at ${v}.`, (u, v) => `${u} started working at ${v}.`],
  pet: [(u, v) => `${u} has ${v} as a pet.`, (u, v) => `${u} mentioned their pet is ${v}.`],
};
const ASK: Record<Fact['attribute'], (user: string) => string> = {
  city: (u) => `Where does ${u} live?`,
  drink: (u) => `What is ${u}'s favourite drink?`,
  employer: (u) => `Where does ${u} work?`,
  pet: (u) => `What pet does ${u} have?`,
};
const FILLER = [
  'Reviewed the deployment checklist.',
  'Standup moved to the small room.',
  'Lunch order placed for the team.',
  'Printer on floor 3 jammed again.',
  'Backups finished without errors.',
  'Updated the onboarding wiki page.',
  'Weekly metrics look stable.',
  'Rotated the on-call schedule.',
];

function pick<T>(next: () => number, list: readonly T[]): T {
  return list[Math.floor(next() * list.length)] as T;
}

/** `users` people, `days` dated notes of `linesPerDay` lines; about a fifth of the facts get an update. */
export function generateCorpus(seed: number, users: number, days: number, linesPerDay: number): Corpus {
  const next = random(seed);
  const names = Array.from(
    { length: users },
    (_, index) =>
      `${FIRST[index % FIRST.length]} ${LAST[Math.floor(index / FIRST.length) % LAST.length]}${index >= FIRST.length * LAST.length ? index : ''}`,
  );
  const files = new Map<string, string[]>();
  const facts: Fact[] = [];
  const latest = new Map<string, Fact>();
  const older = new Map<string, Fact>();
  let lines = 0;
  const attributes = Object.keys(VALUES) as Array<Fact['attribute']>;
  for (let day = 0; day < days; day += 1) {
    const date = new Date(Date.UTC(2026, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
    const path = `memory/${date}.md`;
    const content = [`# ${date}`, ''];
    while (content.length < linesPerDay) {
      if (next() < 0.3) {
        const user = pick(next, names);
        const attribute = pick(next, attributes);
        const key = `${user}|${attribute}`;
        const previous = latest.get(key);
        // Early days state facts; later days update a share of them.
        if (previous && next() > 0.5) continue;
        let value = pick(next, VALUES[attribute]);
        if (previous) while (value === previous.value) value = pick(next, VALUES[attribute]);
        const fact: Fact = { user, attribute, value, path, line: content.length + 1, superseded: false };
        content.push(`- ${pick(next, SAY[attribute])(user, value)}`);
        if (previous) {
          previous.superseded = true;
          older.set(key, previous);
        }
        latest.set(key, fact);
        facts.push(fact);
      } else content.push(`- ${pick(next, FILLER)} (${Math.floor(next() * 1000)})`);
    }
    files.set(path, content);
    lines += content.length;
  }
  const questions: Question[] = [...latest.entries()].map(([key, fact]) => {
    const previous = older.get(key);
    return { text: ASK[fact.attribute](fact.user), evidence: fact, ...(previous ? { older: previous } : {}) };
  });
  for (let index = 0; index < Math.max(20, Math.floor(questions.length / 10)); index += 1)
    questions.push({ text: ASK[pick(next, attributes)](`${pick(next, FIRST)} Zebrowski${index}`) });
  return { files, facts, questions, lines };
}
