/** fast-check arbitraries for hostile, boundary and valid values of every path and query parameter. */
import fc from 'fast-check';

const digits = (min: number, max: number) => fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-fA-F]{${n}}$`));

export const numbers = fc.oneof(
  fc.constantFrom(
    '0',
    '1',
    '2',
    '98',
    '800',
    '1001',
    '5000',
    '9223372036854775807',
    '9223372036854775808',
    '18446744073709551616',
    '274877906943',
    '274877906944',
    '2147483647',
    '2147483648',
    '-1',
    '-9223372036854775808',
    '1e3',
    '0x10',
    '00001',
    '1.0',
  ),
  digits(1, 25),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
);

export const entityIds = fc.oneof(
  numbers,
  fc.tuple(digits(1, 6), digits(1, 6), digits(1, 14)).map(([s, r, n]) => `${s}.${r}.${n}`),
  fc.tuple(digits(1, 6), digits(1, 14)).map(([r, n]) => `${r}.${n}`),
  fc.constantFrom('0.0.1001', '0.0.2', '0.0.0', '1023.65535.274877906943', '1024.0.1', '0.65536.1', '0..1', '.1', '1.', '0.0.1.2'),
);

export const evmAddresses = fc.oneof(
  hex(40),
  hex(40).map((h) => '0x' + h),
  digits(1, 12).map((n) => '0x' + BigInt(n).toString(16).padStart(40, '0')),
  hex(40).map((h) => '0.0.' + h),
  fc.constantFrom('0x', '0x0', '0x' + '0'.repeat(40), '0X' + 'a'.repeat(40), '0x' + 'g'.repeat(40), 'a'.repeat(39), 'a'.repeat(41)),
);

export const aliases = fc.oneof(
  fc.stringMatching(/^[A-Z2-7]{1,60}$/),
  fc.stringMatching(/^[a-z2-7]{1,60}$/),
  fc.constantFrom(
    'KGNABD5L3ZGSRVUCSPDR7TONZSRY3D5OMEBKQMVTD2AC6JL72HMQ',
    '0.0.KGNABD5L3ZGSRVUCSPDR7TONZSRY3D5OMEBKQMVTD2AC6JL72HMQ',
    '1.2.AAAA',
    'A',
    'AB',
    'ABC',
    'AAAAAAAA=',
  ),
);

export const timestamps = fc.oneof(
  fc.tuple(digits(1, 12), fc.option(digits(1, 11))).map(([s, n]) => (n === null ? s : `${s}.${n}`)),
  fc.constantFrom('0', '0.0', '9999999999.999999999', '1234567890.000000007', '1.', '.1', '-1', '1e9', '1:2', 'now'),
);

export const hashes = fc.oneof(
  hex(64),
  hex(96),
  hex(64).map((h) => '0x' + h),
  hex(96).map((h) => '0x' + h),
  hex(63),
  hex(65),
  hex(32),
);

export const transactionIds = fc.oneof(
  fc.tuple(entityIds, digits(1, 21), digits(1, 11)).map(([id, s, n]) => `${id}-${s}-${n}`),
  fc.constantFrom('0.0.8-1234567890-000000006', '0.0.8-1234567890-6', '0.0.8-1234567890', '0.0.8--1', '0.0.8-a-b'),
);

export const hostile = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    "' OR 1=1--",
    '1; drop table entity',
    '{"a":1}',
    '[1,2]',
    'null',
    'undefined',
    '__proto__',
    'constructor',
    '%00',
    '%ZZ',
    '%2F..%2F',
    '../../etc/passwd',
    '\u0000',
    '😀',
    'Ω≈ç√',
    'x'.repeat(600),
    ' ',
    '',
  ),
);

export const operators = fc.constantFrom('', 'eq:', 'ne:', 'lt:', 'lte:', 'gt:', 'gte:', 'foo:', 'EQ:', ':', 'gt:gt:');

const anyValue = fc.oneof(
  numbers,
  entityIds,
  evmAddresses,
  aliases,
  timestamps,
  hashes,
  hostile,
  fc.constantFrom('asc', 'desc', 'ASC', 'true', 'false', 'TRUE', 'cryptotransfer', 'CONTRACTCALL', 'UNKNOWN', 'NODE'),
);

export const queryKeys = fc.constantFrom(
  'limit',
  'order',
  'timestamp',
  'transactiontype',
  'transactions',
  'token.id',
  'serialnumber',
  'spender.id',
  'block.number',
  'nonce',
  'hbar',
  'LIMIT',
  'Timestamp',
  'foo',
  'account.id',
  'limit[]',
  'a[b]',
  '',
);

/** A query string of up to 12 parameters (mostly none or a few), each `key=[op:]value`, encoded or raw. */
const param = fc.tuple(queryKeys, operators, anyValue, fc.boolean());
export const queryStrings = fc
  .oneof(
    { weight: 3, arbitrary: fc.constant([]) },
    { weight: 4, arbitrary: fc.array(param, { maxLength: 2 }) },
    { weight: 1, arbitrary: fc.array(param, { maxLength: 12 }) },
  )
  .map((params) =>
    params
      .map(([key, op, value, encode]) => `${key}=${encode ? encodeURIComponent(op + value) : (op + value).replace(/[#&\s]/g, '')}`)
      .join('&'),
  );

function pathValue(values: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(fc.oneof({ weight: 3, arbitrary: values }, { weight: 1, arbitrary: hostile }), fc.boolean())
    .map(([v, encode]) => (encode ? encodeURIComponent(v) : v.replace(/[/?#\s%]/g, 'x') || 'x'));
}

const accountPath = pathValue(fc.oneof(entityIds, evmAddresses, aliases));

/** Request URLs for every endpoint. */
export const urls = fc.oneof(
  fc.tuple(accountPath, queryStrings).map(([id, q]) => `/api/v1/accounts/${id}?${q}`),
  fc.tuple(accountPath, queryStrings).map(([id, q]) => `/api/v1/accounts/${id}/nfts?${q}`),
  queryStrings.map((q) => `/api/v1/blocks?${q}`),
  fc.tuple(pathValue(fc.oneof(numbers, hashes)), queryStrings).map(([id, q]) => `/api/v1/blocks/${id}?${q}`),
  fc.tuple(pathValue(fc.oneof(transactionIds, hashes)), queryStrings).map(([id, q]) => `/api/v1/contracts/results/${id}?${q}`),
  fc
    .tuple(pathValue(fc.oneof(entityIds, evmAddresses)), pathValue(timestamps), queryStrings)
    .map(([id, ts, q]) => `/api/v1/contracts/${id}/results/${ts}?${q}`),
);
