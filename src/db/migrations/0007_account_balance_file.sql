-- The balance files (`lqs ingest --balances`) and the balance snapshots the ingester takes, one row
-- each, shaped as the mirror node's `account_balance_file` (`synthetic` marks a snapshot taken from
-- the ingested state rather than read from a node's file; `time_offset` is the mainnet errata's).
create table if not exists account_balance_file (
  consensus_timestamp bigint not null primary key,
  count               bigint not null,
  load_start          bigint not null,
  load_end            bigint not null,
  file_hash           varchar(96),
  name                varchar(250) not null,
  bytes               bytea,
  time_offset         integer not null default 0,
  synthetic           boolean not null default false
);
create index if not exists account_balance_file__name on account_balance_file (name);
