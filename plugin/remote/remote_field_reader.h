/*
 * The members of one sandbox object (remote_sandbox_rules.h) read from the
 * events of the shared lexer (common/json_stream.h, json-c mode) as json-c
 * reads them: the last one of a repeated key, strings as bytes checked for
 * clean text, mount_contract_version as an int.  The streaming list
 * decoder reads each entry with one (remote_list_stream.h), the one-pass
 * sandbox answer reader its single object (remote_sandbox_answer.h).  The
 * caller says which events are the object's: its keys and its members'
 * values.  One reader, one thread at a time.
 */
#ifndef SBX_REMOTE_FIELD_READER_H
#define SBX_REMOTE_FIELD_READER_H

#include "common/dynbuf.h"
#include "common/json_stream.h"
#include "plugin/remote/remote_sandbox_rules.h"

typedef struct remote_field_reader {
    common_json_field state[REMOTE_FIELD_COUNT];
    int version;
    common_dynbuf text; /* the object's string fields one after another, each
                         * NUL-terminated: one buffer, reused, not one each */
    size_t offset[REMOTE_FIELD_VERSION]; /* where each field's last string begins in text */
    int pending_field;  /* the next member value is this field, or -1 */
    int value_field;    /* the scalar being read is this field, or -1 */
} remote_field_reader;

/* Ready an empty reader (its buffers are freed by remote_field_reader_free). */
void remote_field_reader_init(remote_field_reader *r);

/* An object begins: every member absent (the last object's strings are
 * forgotten). */
void remote_field_reader_start(remote_field_reader *r);

/* The lexer's KEY event of one of the object's own keys. */
void remote_field_reader_key(remote_field_reader *r, const common_json_stream *lex);

/* The lexer's BEGIN event of one of the object's member values; a field's
 * string is pointed at its buffer (lex->target).  Any other BEGIN while the
 * object is open must reach remote_field_reader_other_begins. */
void remote_field_reader_value_begins(remote_field_reader *r, common_json_stream *lex);

/* Any BEGIN that is not one of the object's member values. */
void remote_field_reader_other_begins(remote_field_reader *r);

/* The lexer's SCALAR event (of any value: one that is not a field's does
 * nothing).  Sets lex->out_of_memory when a string could not be kept. */
void remote_field_reader_value_ends(remote_field_reader *r, common_json_stream *lex);

/* What was read, for remote_check_fields; the strings are borrowed from
 * the reader (valid until it reads on or is freed). */
void remote_field_reader_fields(const remote_field_reader *r, remote_fields *f);

/* Free the buffers. */
void remote_field_reader_free(remote_field_reader *r);

#endif /* SBX_REMOTE_FIELD_READER_H */
