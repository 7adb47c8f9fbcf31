-- The metadata hash the nodes sign beside the file hash (record files v5 and v6), as the mirror
-- node's record_file keeps it; written by `lqs ingest`.
alter table record_file add column if not exists metadata_hash varchar(96);
