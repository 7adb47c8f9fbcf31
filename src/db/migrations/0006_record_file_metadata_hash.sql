-- The metadata hash the nodes sign beside the file hash (record files v5 and v6). The mirror
-- node's importer checks it but keeps no column for it; `lqs ingest` keeps it so that a stored
-- row can be checked against the nodes' signature files again. The API reads no such column.
alter table record_file add column if not exists metadata_hash varchar(96);
