/*
 * Create the event @cmd (past @skip bytes) describes, or find it if it
 * exists with its fields
 */
