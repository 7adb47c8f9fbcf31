-- Tables of the Hiero mirror node (schema "v1") that the six read endpoints use, with the
-- reference's table names, column names, types and keys, so that a mirror node database can be
-- read as it is. Range-partitioned tables of the reference (account_balance, token_balance,
-- transaction_hash) are plain tables here; the keys and indexes the queries use are the same.

do $$ begin
  create type entity_type as enum ('ACCOUNT', 'CONTRACT', 'FILE', 'TOPIC', 'TOKEN', 'SCHEDULE', 'UNKNOWN');
exception when duplicate_object then null; end $$;
do $$ begin
  create type token_type as enum ('FUNGIBLE_COMMON', 'NON_FUNGIBLE_UNIQUE');
exception when duplicate_object then null; end $$;
do $$ begin
  create type token_supply_type as enum ('INFINITE', 'FINITE');
exception when duplicate_object then null; end $$;
do $$ begin
  create type token_pause_status as enum ('NOT_APPLICABLE', 'PAUSED', 'UNPAUSED');
exception when duplicate_object then null; end $$;
do $$ begin
  create type errata_type as enum ('INSERT', 'DELETE');
exception when duplicate_object then null; end $$;

create table if not exists entity (
  alias                            bytea,
  auto_renew_account_id            bigint,
  auto_renew_period                bigint,
  balance                          bigint,
  balance_timestamp                bigint,
  created_timestamp                bigint,
  decline_reward                   boolean      not null default false,
  deleted                          boolean,
  delegation_address               bytea,
  ethereum_nonce                   bigint       default 0,
  evm_address                      bytea,
  expiration_timestamp             bigint,
  id                               bigint       not null,
  key                              bytea,
  max_automatic_token_associations integer,
  memo                             text         not null default '',
  num                              bigint       not null,
  obtainer_id                      bigint,
  permanent_removal                boolean,
  proxy_account_id                 bigint,
  public_key                       varchar,
  realm                            bigint       not null,
  receiver_sig_required            boolean,
  shard                            bigint       not null,
  stake_period_start               bigint       default -1,
  staked_account_id                bigint,
  staked_node_id                   bigint       default -1,
  timestamp_range                  int8range    not null,
  type                             entity_type  not null default 'UNKNOWN',
  primary key (id)
);
create index if not exists entity__alias on entity (alias) where alias is not null;
create index if not exists entity__evm_address on entity (evm_address) where evm_address is not null;
create index if not exists entity__public_key_type on entity (public_key, type) where public_key is not null;
create index if not exists entity__type_id on entity (type, id);

create table if not exists entity_history (like entity including defaults);
create index if not exists entity_history__alias on entity_history (alias) where alias is not null;
create index if not exists entity_history__evm_address on entity_history (evm_address) where evm_address is not null;
create index if not exists entity_history__id_lower_timestamp on entity_history (id, lower(timestamp_range));

create table if not exists entity_stake (
  end_stake_period     bigint    not null,
  id                   bigint    not null,
  pending_reward       bigint    not null,
  staked_node_id_start bigint    not null,
  staked_to_me         bigint    not null,
  stake_total_start    bigint    not null,
  timestamp_range      int8range not null,
  primary key (id)
);
create table if not exists entity_stake_history (like entity_stake including defaults);
create index if not exists entity_stake_history__id_lower_timestamp on entity_stake_history (id, lower(timestamp_range));

create table if not exists account_balance (
  account_id          bigint not null,
  balance             bigint not null,
  consensus_timestamp bigint not null,
  primary key (account_id, consensus_timestamp)
);
-- The treasury's snapshot rows mark the snapshot times; this index finds the latest one in a window.
create index if not exists account_balance__consensus_timestamp on account_balance (consensus_timestamp);

create table if not exists token_balance (
  account_id          bigint not null,
  balance             bigint not null,
  consensus_timestamp bigint not null,
  token_id            bigint not null,
  primary key (account_id, token_id, consensus_timestamp)
);
create index if not exists token_balance__token_account_timestamp on token_balance (token_id, account_id, consensus_timestamp);

create table if not exists token_account (
  account_id            bigint    not null,
  associated            boolean   not null default false,
  automatic_association boolean   not null default false,
  balance               bigint    not null default 0,
  balance_timestamp     bigint,
  created_timestamp     bigint,
  freeze_status         smallint,
  kyc_status            smallint,
  timestamp_range       int8range not null,
  token_id              bigint    not null,
  primary key (account_id, token_id)
);
create index if not exists token_account__token_account on token_account (token_id, account_id);
create table if not exists token_account_history (like token_account including defaults);

create table if not exists token (
  created_timestamp   bigint             not null,
  decimals            bigint             not null,
  fee_schedule_key    bytea,
  freeze_default      boolean            not null default false,
  freeze_key          bytea,
  freeze_status       smallint           not null default 0,
  initial_supply      bigint             not null,
  kyc_key             bytea,
  kyc_status          smallint           not null default 0,
  max_supply          bigint             not null default 9223372036854775807,
  metadata            bytea,
  metadata_key        bytea,
  name                varchar(100)       not null,
  pause_key           bytea,
  pause_status        token_pause_status not null default 'NOT_APPLICABLE',
  supply_key          bytea,
  supply_type         token_supply_type  not null default 'INFINITE',
  symbol              varchar(100)       not null,
  timestamp_range     int8range          not null,
  token_id            bigint             not null,
  total_supply        bigint             not null default 0,
  treasury_account_id bigint             not null,
  type                token_type         not null default 'FUNGIBLE_COMMON',
  wipe_key            bytea,
  primary key (token_id)
);
create table if not exists token_history (like token including defaults);

create table if not exists custom_fee (
  entity_id       bigint    not null,
  fixed_fees      jsonb,
  fractional_fees jsonb,
  royalty_fees    jsonb,
  timestamp_range int8range not null,
  primary key (entity_id)
);

create table if not exists transaction (
  batch_key                      bytea,
  charged_tx_fee                 bigint,
  congestion_pricing_multiplier  bigint,
  consensus_timestamp            bigint   not null,
  entity_id                      bigint,
  errata                         errata_type,
  high_volume                    boolean  not null default false,
  high_volume_pricing_multiplier bigint,
  index                          integer,
  initial_balance                bigint   default 0,
  inner_transactions             bigint[],
  itemized_transfer              jsonb,
  max_custom_fees                bytea[],
  max_fee                        bigint,
  memo                           bytea,
  nft_transfer                   jsonb,
  node_account_id                bigint,
  nonce                          integer  not null default 0,
  parent_consensus_timestamp     bigint,
  payer_account_id               bigint   not null,
  result                         smallint not null,
  scheduled                      boolean  not null default false,
  transaction_bytes              bytea,
  transaction_hash               bytea,
  transaction_record_bytes       bytea,
  type                           smallint not null,
  valid_duration_seconds         bigint,
  valid_start_ns                 bigint   not null,
  primary key (consensus_timestamp)
);
create index if not exists transaction__payer_account_id on transaction (payer_account_id, consensus_timestamp);
create index if not exists transaction__valid_start_ns_payer on transaction (valid_start_ns, payer_account_id);
create index if not exists transaction__type_consensus_timestamp on transaction (type, consensus_timestamp);

create table if not exists transaction_hash (
  consensus_timestamp bigint not null,
  hash                bytea  not null,
  hash_suffix         bytea,
  payer_account_id    bigint
);
create index if not exists transaction_hash__hash on transaction_hash using hash (hash);

create table if not exists crypto_transfer (
  amount              bigint not null,
  consensus_timestamp bigint not null,
  entity_id           bigint not null,
  errata              errata_type,
  is_approval         boolean,
  payer_account_id    bigint not null
);
create index if not exists crypto_transfer__consensus_timestamp on crypto_transfer (consensus_timestamp);
create index if not exists crypto_transfer__entity_id_consensus_timestamp on crypto_transfer (entity_id, consensus_timestamp)
  where entity_id <> 98;

create table if not exists token_transfer (
  account_id          bigint not null,
  amount              bigint not null,
  consensus_timestamp bigint not null,
  is_approval         boolean,
  payer_account_id    bigint not null,
  token_id            bigint not null
);
create index if not exists token_transfer__account_timestamp on token_transfer (account_id, consensus_timestamp desc);
create index if not exists token_transfer__timestamp_token_account on token_transfer (consensus_timestamp desc, token_id desc, account_id desc);

create table if not exists staking_reward_transfer (
  account_id          bigint not null,
  amount              bigint not null,
  consensus_timestamp bigint not null,
  payer_account_id    bigint not null,
  primary key (consensus_timestamp, account_id)
);
create index if not exists staking_reward_transfer__account_timestamp on staking_reward_transfer (account_id, consensus_timestamp);

create table if not exists entity_transaction (
  consensus_timestamp bigint   not null,
  entity_id           bigint   not null,
  payer_account_id    bigint   not null,
  result              smallint not null,
  type                smallint not null,
  primary key (entity_id, consensus_timestamp)
);

create table if not exists nft (
  account_id         bigint,
  created_timestamp  bigint,
  delegating_spender bigint,
  deleted            boolean   default false,
  metadata           bytea,
  serial_number      bigint    not null,
  spender            bigint,
  timestamp_range    int8range not null,
  token_id           bigint    not null,
  primary key (token_id, serial_number)
);
create index if not exists nft__account_token_serial on nft (account_id, token_id, serial_number);
create index if not exists nft__account_spender_token_serial on nft (account_id, spender, token_id, serial_number)
  where account_id is not null and spender is not null;
create table if not exists nft_history (like nft including defaults);
create index if not exists nft_history__token_serial_lower_timestamp on nft_history (token_id, serial_number, lower(timestamp_range));

create table if not exists record_file (
  bytes                  bytea,
  consensus_end          bigint       not null,
  consensus_start        bigint       not null,
  count                  bigint       not null,
  digest_algorithm       integer      not null default 0,
  file_hash              varchar(96),
  gas_used               bigint       default -1,
  hapi_version_major     integer,
  hapi_version_minor     integer,
  hapi_version_patch     integer,
  hash                   varchar(96)  not null,
  index                  bigint       not null,
  load_end               bigint,
  load_start             bigint,
  logs_bloom             bytea,
  name                   varchar(250) not null,
  node_id                bigint,
  prev_hash              varchar(96)  not null,
  sidecar_count          integer      not null default 0,
  size                   integer,
  software_version_major integer,
  software_version_minor integer,
  software_version_patch integer,
  version                integer      not null default 0,
  primary key (consensus_end)
);
create index if not exists record_file__hash on record_file (hash collate "C");
create index if not exists record_file__index on record_file (index);

create table if not exists contract (
  file_id          bigint,
  id               bigint not null,
  initcode         bytea,
  runtime_bytecode bytea,
  primary key (id)
);

create table if not exists contract_action (
  call_depth          integer     not null,
  call_operation_type integer,
  call_type           integer,
  caller              bigint,
  caller_type         entity_type default 'CONTRACT',
  consensus_timestamp bigint      not null,
  gas                 bigint      not null,
  gas_used            bigint      not null,
  index               integer     not null,
  input               bytea,
  payer_account_id    bigint      not null,
  recipient_account   bigint,
  recipient_address   bytea,
  recipient_contract  bigint,
  result_data         bytea,
  result_data_type    integer     not null,
  value               bigint      not null,
  primary key (consensus_timestamp, index)
);

create table if not exists contract_result (
  amount               bigint,
  bloom                bytea,
  call_result          bytea,
  consensus_timestamp  bigint   not null,
  contract_id          bigint   not null,
  created_contract_ids bigint[],
  error_message        text,
  failed_initcode      bytea,
  function_parameters  bytea    not null,
  function_result      bytea,
  gas_consumed         bigint,
  gas_limit            bigint   not null,
  gas_used             bigint,
  payer_account_id     bigint   not null,
  sender_id            bigint,
  transaction_hash     bytea,
  transaction_index    integer,
  transaction_nonce    integer  not null default 0,
  transaction_result   smallint not null,
  primary key (consensus_timestamp)
);
create index if not exists contract_result__contract_sender_timestamp on contract_result (contract_id, sender_id, consensus_timestamp);
create index if not exists contract_result__contract_timestamp on contract_result (contract_id, consensus_timestamp);
create index if not exists contract_result__sender_timestamp on contract_result (sender_id, consensus_timestamp);

create table if not exists contract_log (
  bloom               bytea   not null,
  consensus_timestamp bigint  not null,
  contract_id         bigint  not null,
  data                bytea   not null,
  index               integer not null,
  payer_account_id    bigint  not null,
  root_contract_id    bigint,
  synthetic           boolean,
  topic0              bytea,
  topic1              bytea,
  topic2              bytea,
  topic3              bytea,
  transaction_hash    bytea,
  transaction_index   integer,
  primary key (consensus_timestamp, index)
);
create index if not exists contract_log__contract_timestamp_index on contract_log (contract_id, consensus_timestamp desc, index);

create table if not exists contract_state_change (
  consensus_timestamp bigint  not null,
  contract_id         bigint  not null,
  migration           boolean not null default false,
  payer_account_id    bigint  not null,
  slot                bytea   not null,
  value_read          bytea   not null,
  value_written       bytea,
  primary key (consensus_timestamp, contract_id, slot)
);
create index if not exists contract_state_change__contract_slot_timestamp on contract_state_change (contract_id, slot, consensus_timestamp);

create table if not exists contract_transaction (
  consensus_timestamp bigint   not null,
  contract_ids        bigint[] not null,
  entity_id           bigint   not null,
  payer_account_id    bigint   not null,
  primary key (consensus_timestamp, entity_id)
);

create table if not exists contract_transaction_hash (
  consensus_timestamp bigint   not null,
  entity_id           bigint   not null,
  hash                bytea    not null,
  payer_account_id    bigint   not null,
  transaction_result  smallint not null
);
create index if not exists contract_transaction_hash__hash on contract_transaction_hash using hash (hash);

create table if not exists ethereum_transaction (
  access_list              jsonb,
  authorization_list       jsonb,
  call_data                bytea,
  call_data_id             bigint,
  chain_id                 bytea,
  consensus_timestamp      bigint   not null,
  data                     bytea    not null,
  gas_limit                bigint   not null,
  gas_price                bytea,
  hash                     bytea    not null,
  max_fee_per_gas          bytea,
  max_gas_allowance        bigint   not null,
  max_priority_fee_per_gas bytea,
  nonce                    bigint   not null,
  payer_account_id         bigint   not null,
  recovery_id              smallint,
  signature_r              bytea    not null,
  signature_s              bytea    not null,
  signature_v              bytea,
  to_address               bytea,
  type                     smallint not null,
  value                    bytea,
  primary key (consensus_timestamp)
);

create table if not exists file_data (
  consensus_timestamp bigint   not null,
  entity_id           bigint   not null,
  file_data           bytea,
  transaction_type    smallint not null,
  primary key (consensus_timestamp)
);
create index if not exists file_data__entity_timestamp on file_data (entity_id, consensus_timestamp);
