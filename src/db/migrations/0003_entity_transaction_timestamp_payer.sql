-- An entity's entity_transaction rows in timestamp order with their payers, read without the table.
-- Without it, the prepared (generic) plan of the untyped page reads the source through the typed
-- index of 0002 and sorts all of the account's rows to keep 25: 24,574 rows and 7 ms of an 8 ms page
-- for the NFT marketplace of the large bench dataset, against 25 rows in order through this one.
create index if not exists entity_transaction__entity_timestamp_payer on entity_transaction (entity_id, consensus_timestamp)
  include (payer_account_id);
