/**
 * Every setting of the service, described once: type, default, bounds, the reference's key and the
 * one-line meaning. Keys under `response`, `query` and `network` use the reference's names
 * (`hiero.mirror.rest.*`) so that its settings carry over. The Config type, the defaults, the
 * `LQS_*` variables, the reference's names, validation and the README's table derive from it.
 */
import { big, bool, choice, type ConfigOf, headers, num, nums, type OverridesOf, pathHeaders, port, str, strs } from './leaf.js';

/** The reads `db.primaryReads` can send to the primary. */
export const PRIMARY_READS = ['blocks'] as const;

/** How an account's transfers in transactions of one type are found; `auto` lets the costs choose. */
export const TRANSFER_JOINS = ['auto', 'merge', 'probe by account', 'probe by type'] as const;

/** libpq's `sslmode` values, as the reference's `db.sslMode` names them (lower case, dashed). */
export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;

const ms = (min: number) => ({ min, is: `a number of milliseconds of ${min} or more` });

export const SETTINGS = {
  port: port(5551, 'public listener port', { ref: 'port' }),
  host: str('0.0.0.0', 'public listener address'),
  shard: big(0n, 'the shard entity ids are read and written in', { ref: 'common.shard' }),
  realm: big(0n, 'the realm entity ids are read and written in', { ref: 'common.realm' }),
  db: {
    url: str('', 'PostgreSQL URL (`DATABASE_URL`); empty means the embedded database', { postgresUrl: true, secret: true }),
    dataDir: str('./data', 'PGlite data directory (`memory`, or empty in a file: in memory)'),
    poolSize: num(10, 'connections in the PostgreSQL pool', {
      range: { min: 1, integer: true, is: 'a pool size (an integer of 1 or more)' },
      ref: 'db.pool.maxConnections',
    }),
    statementTimeoutMs: num(20_000, 'a PostgreSQL statement running longer is cancelled', { ref: 'db.pool.statementTimeout' }),
    lockTimeoutMs: num(2_000, 'a statement waiting longer for a lock fails (503); below `db.statementTimeoutMs`; 0: no limit of its own'),
    connectionTimeoutMs: num(3_000, 'a connection to PostgreSQL not made within this fails', { ref: 'db.pool.connectionTimeout' }),
    preparedStatements: bool(true, 'named (prepared) statements; false behind a pooler in transaction mode (PgBouncer before 1.21)'),
    migrate: bool(true, 'apply migrations at start-up (off for a read-only role on a database the service did not create)'),
    replicas: strs([], 'PostgreSQL URLs of read replicas, comma-separated in a variable (see Deployment)', {
      postgresUrl: true,
      secret: true,
    }),
    maxReplicaLagMs: num(5_000, 'replay lag beyond which a replica leaves the rotation until it catches up', { range: ms(0) }),
    replicaCheckIntervalMs: num(1_000, "how often each replica's replay lag is checked", { range: ms(10) }),
    primaryReads: strs(['blocks'], 'reads kept on the primary with replicas, as they must see the newest data', {
      oneOf: PRIMARY_READS,
    }),
    sslMode: choice(
      SSL_MODES,
      'disable',
      'TLS to PostgreSQL, primary and replicas: `require` encrypts, `verify-ca` also checks the certificate against `db.tls.ca`, `verify-full` also its host name; `allow` and `prefer` as `disable` (no fallback here)',
      { ref: 'db.sslMode', refEnum: true },
    ),
    tls: {
      enabled: bool(
        false,
        'TLS to PostgreSQL; with `db.sslMode` `disable`, `allow` or `prefer`, as `require` (the certificate is not checked)',
        {
          ref: 'db.tls.enabled',
        },
      ),
      ca: str('', 'file of the certificate authority the server certificate is checked against (`verify-ca`, `verify-full`)', {
        ref: 'db.tls.ca',
      }),
      cert: str('', 'file of the client certificate, for a server that asks for one', { ref: 'db.tls.cert' }),
      key: str('', "file of the client certificate's private key", { ref: 'db.tls.key' }),
    },
  },
  response: {
    limit: {
      default: num(25, 'page size without `limit`', { ref: 'response.limit.default' }),
      max: num(100, 'the largest `limit`', { ref: 'response.limit.max' }),
      tokenBalance: {
        singleAccount: num(1000, 'token balances listed with one account', { ref: 'response.limit.tokenBalance.singleAccount' }),
      },
    },
    includeHostInLink: bool(false, "`links.next` with the scheme, the request's host name (a plain name or IP literal only) and `port`", {
      ref: 'response.includeHostInLink',
    }),
    enableDelegationAddress: bool(
      false,
      '`delegation_address` on accounts and `authorization_list` on Ethereum contract results (EIP-7702)',
      {
        ref: 'response.enableDelegationAddress',
      },
    ),
    compression: bool(true, 'gzip or br for a client that accepts it', { ref: 'response.compression' }),
    compressionThreshold: num(1024, 'bodies smaller than this many bytes are sent uncompressed'),
    headers: {
      default: headers({}, "headers added to every successful API response (JSON in a variable), over the service's own", {
        ref: 'response.headers.default',
      }),
      path: pathHeaders(
        {},
        "headers by route (`/api/v1/blocks/:hashOrNumber`; JSON in a variable), over `response.headers.default` and the route's own Cache-Control",
        { ref: 'response.headers.path' },
      ),
    },
  },
  query: {
    maxRepeatedQueryParameters: num(100, 'a parameter repeated more often gets 400', { ref: 'query.maxRepeatedQueryParameters' }),
    bindTimestampRange: bool(false, 'a timestamp range left open is bound to `maxTransactionsTimestampRangeNs`', {
      ref: 'query.bindTimestampRange',
    }),
    maxTransactionsTimestampRangeNs: big(5_184_000_000_000_000n, 'the widest timestamp range of a transactions query', {
      shown: '60 days',
      ref: 'query.maxTransactionsTimestampRange',
      refDuration: true,
    }),
    maxTransactionConsensusTimestampRangeNs: big(35n * 60n * 1_000_000_000n, 'how far after its valid start a transaction is looked for', {
      shown: '35 minutes',
      ref: 'query.maxTransactionConsensusTimestampRange',
      refDuration: true,
    }),
    maxFileAttempts: num(12, 'versions of a system file tried before giving up on a broken one', { ref: 'query.maxFileAttempts' }),
    precedingTransactionTypes: nums([11, 15], 'transaction types whose preceding transaction is listed with them', {
      ref: 'query.transactions.precedingTransactionTypes',
    }),
    transfers: {
      walkLimit: num(1_000, "rows an account's transfer walk probes one by one before a merge takes over", {
        range: { min: 0, integer: true, is: 'a number of rows (an integer of 0 or more)' },
      }),
      probeCost: num(12, 'rows a merge reads sequentially in the time one index probe takes', {
        range: { min: 0, is: 'a number of rows of 0 or more' },
      }),
      maxCounted: num(200_000, "the most transfers counted to decide whether probing from the type's side pays", {
        range: { min: 0, integer: true, is: 'a number of rows (an integer of 0 or more)' },
      }),
      join: choice(TRANSFER_JOINS, 'auto', "how an account's transfers of one transaction type are found (`auto`: the cheaper)"),
    },
  },
  network: { chainId: str('0x128', 'the EVM chain id', { ref: 'chainId' }) },
  log: {
    level: str('info', 'pino level at start-up (`silly` is `trace`); changed at run time by POST /change-log-level', { ref: 'log.level' }),
    pretty: bool(false, 'readable log lines (pino-pretty) instead of JSON lines'),
    sampleRate: num(1, "share of successful API requests logged at info (errors always; the reference's default is 0.1)", {
      range: { min: 0, max: 1, is: 'a share from 0 to 1' },
      ref: 'log.sampleRate',
    }),
  },
  metrics: {
    enabled: bool(true, 'Prometheus metrics at `metrics.config.uriPath` + `/metrics/` on the public listener', { ref: 'metrics.enabled' }),
    config: {
      authentication: bool(false, 'Basic auth on the scrape', { ref: 'metrics.config.authentication' }),
      username: str('', "the scrape's user", { ref: 'metrics.config.username' }),
      password: str('', "the scrape's password", { ref: 'metrics.config.password', secret: true }),
      uriPath: str('/swagger', 'the path the metrics are served under', { ref: 'metrics.config.uriPath' }),
    },
  },
  server: {
    workers: num(1, 'processes serving the public listener (0: one per core); other than 1 needs PostgreSQL (`db.url`)', {
      range: { min: 0, max: 256, integer: true, is: 'a number of worker processes (an integer from 0, one per core, to 256)' },
    }),
    maxInFlight: num(1024, 'concurrent requests beyond which new ones get 503 (in each worker process)'),
    requestTimeoutMs: num(30_000, 'whole-request deadline against slow clients, headers included (else 408)'),
    responseTimeoutMs: num(30_000, 'a computed response not written to the client within this is dropped with its connection'),
    keepAliveTimeoutMs: num(5_000, 'an idle keep-alive connection is closed after this', { ref: 'response.keepAliveTimeout' }),
    maxConnections: num(
      4096,
      'open connections of the public listener beyond which new ones are closed at once (in each worker process; 0: no cap)',
      {
        range: { min: 0, integer: true, is: 'a number of connections (an integer of 0 or more)' },
      },
    ),
    maxConnectionsPerAddress: num(
      256,
      'open connections from one client address beyond which its new ones are closed at once (0: no cap)',
      {
        range: { min: 0, integer: true, is: 'a number of connections (an integer of 0 or more)' },
      },
    ),
    maxUrlLength: num(4096, 'longer URLs get 414'),
    maxQueryParameters: num(100, 'more query parameters get 400'),
    maxHeaderBytes: num(16_384, 'larger request headers get 431'),
  },
  admin: {
    enabled: bool(true, 'the admin listener (POST /change-log-level), separate from the public one'),
    port: port(5552, 'admin listener port'),
    host: str('127.0.0.1', 'admin listener address'),
    users: strs([], '`user:password` or `user:scrypt$salt$hash` entries (none, and no usersFile: every request refused)', { secret: true }),
    usersFile: str('', 'a file of further entries, one per line, read at start-up'),
    maxFailures: num(5, 'failed attempts from one client address within failureWindowMs before it is locked out'),
    maxUserFailures: num(10, 'failed attempts naming one user, from any address, before that user name is locked out'),
    maxTotalFailures: num(20, 'failed attempts in all within failureWindowMs before every request is locked out'),
    failureWindowMs: num(60_000, 'the window the failures are counted in'),
    lockoutMs: num(60_000, 'how long a locked-out client, user name or listener is answered 429'),
    maxTrackedClients: num(10_000, 'client addresses (and user names) whose failures are remembered at most'),
    maxConcurrentVerifications: num(1, 'scrypt password verifications running at once; more get 429'),
    maxVerificationsPerSecond: num(2, 'scrypt password verifications a second (a burst of as many); more get 429'),
  },
  upstream: {
    url: str(
      '',
      'the reference REST service (`http://host:port`) that answers every path no route here serves; empty: 404 (see Path split)',
      {
        httpOrigin: true,
      },
    ),
    timeoutMs: num(10_000, "a connection to the upstream, its answer's headers or a pause in its body taking longer ends in 504", {
      range: ms(1),
    }),
  },
  demo: {
    load: choice(['auto', 'true', 'false'], 'auto', 'load the demo ledger into an empty database (`auto`: the embedded database only)'),
  },
  ingest: {
    source: str(
      '',
      'stream files `serve` ingests while it serves (a folder laid out as the buckets are, or `s3://bucket/prefix`); empty: none (see Ingestion)',
    ),
    addressBook: str('', 'the `NodeAddressBook` file whose keys verify the signatures; empty: the bundled book of `ingest.network`'),
    network: str('', 'the network whose bundled address book is used (`mainnet`, `testnet`, `previewnet`, `demo`)'),
    trust: str('', '`NUMBER:HASH`: a block the operator trusts, where native block streams may start (see Ingestion)'),
    errata: str(
      '',
      "mainnet's errata: a folder laid out as the importer's `errata/mainnet` resources (`balance-offsets.txt`, `missingtransactions/*.bin`); empty: none (see Ingestion)",
    ),
    balances: bool(
      false,
      "also the signed account balance files of the source's `accountBalances/`: `account_balance` rows, the first file the starting balances, and no snapshots taken (see Ingestion)",
    ),
    pollMs: num(1_000, 'first wait when nothing is new or a file is refused; doubles up to `ingest.maxPollMs`', { range: ms(10) }),
    maxPollMs: num(30_000, 'longest wait between two looks at the source', { range: ms(10) }),
    s3: {
      region: str('', "an `s3://` source's region; empty: the AWS chain's (`AWS_REGION`, the profile), else `us-east-1`"),
      endpoint: str('', 'an S3-compatible endpoint instead of AWS (`https://storage.googleapis.com` for GCS); empty: AWS', {
        httpOrigin: true,
      }),
      forcePathStyle: bool(false, '`endpoint/bucket/key` addressing instead of `bucket.endpoint/key` (local S3-compatible servers)'),
      requesterPays: bool(false, "`x-amz-request-payer: requester` on every request (the network's buckets are requester-pays)"),
      anonymous: bool(false, 'unsigned requests when the AWS credential chain finds no credentials (public buckets)'),
      gcsProject: str('', 'the Google Cloud project a GCS requester-pays bucket bills (`userProject`); empty: none'),
    },
  },
  cache: {
    enabled: bool(true, 'the response cache: 200s kept for their cache-control max-age (see Response cache)'),
    maxBytes: num(64 * 1024 * 1024, 'bound of the in-process cache (payloads, keys and links, and a measured per-entry overhead)', {
      shown: '64 MiB',
    }),
    maxEntryBytes: num(1024 * 1024, 'a larger response is not kept in the process (Redis may still share it)', { shown: '1 MiB' }),
    redis: {
      url: str('', '`redis://host:port[/db]` of a cache shared by every process; empty: none', { secret: true }),
      keyPrefix: str('lqs:', 'prefix of every key (processes serving the same database share it)'),
      timeoutMs: num(50, 'a Redis GET taking longer is abandoned and the request answered from the database', {
        ref: 'redis.commandTimeout',
      }),
      connectTimeoutMs: num(1_000, 'how long a connection attempt to Redis may take', { ref: 'redis.connectTimeout' }),
      backoffMs: num(1_000, 'after a failure or timeout Redis is left alone this long', { ref: 'redis.maxBackoff' }),
    },
  },
};

export type Config = ConfigOf<typeof SETTINGS>;
export type ConfigOverrides = OverridesOf<typeof SETTINGS>;
