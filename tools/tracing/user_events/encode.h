/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The value encoder of the user_events command: parses an event's
 * description (or its tracefs format) and lays out FIELD=VALUE arguments
 * into a payload the way the kernel expects it.
 */
#ifndef _USER_EVENTS_ENCODE_H
#define _USER_EVENTS_ENCODE_H

#include <stdbool.h>
#include <stddef.h>

#define UEC_MAX_FIELDS	64
#define UEC_MAX_NAME	256
#define UEC_MAX_DESC	512
/* the largest payload the loc fields can describe */
#define UEC_MAX_RECORD	65535
/* the common header before the payload in every record */
#define UEC_HEADER	8

enum uec_kind {
	UEC_INT,	/* u8 ... s64, char, short, int and unsigned forms */
	UEC_CHARS,	/* char[N]: text */
	UEC_BYTES,	/* unsigned char[N], struct T name SIZE: bytes */
	UEC_LOC,	/* __data_loc / __rel_loc TYPE[] */
};

/**
 * struct uec_field - one field of an event
 * @name: its name
 * @type: its type as the description says it ("u32", "char[8]",
 *	"__rel_loc char[]", "struct foo")
 * @kind: what it is
 * @size: its bytes in the fixed part of the payload
 * @elem: element size of an integer or of a loc array
 * @is_signed: a signed integer (or signed elements)
 * @is_char: char elements: a loc array holds a NUL-terminated string
 * @rel: __rel_loc rather than __data_loc
 * @offset: where it starts in the payload
 */
struct uec_field {
	char name[UEC_MAX_NAME];
	char type[80];
	enum uec_kind kind;
	unsigned int size;
	unsigned int elem;
	bool is_signed;
	bool is_char;
	bool rel;
	unsigned int offset;
};

/**
 * struct uec_desc - an event's description, parsed
 * @name: the event name, without flags
 * @text: the description to register: "name[:flags] fields"
 * @fields: the fields in order
 * @nr_fields: how many
 * @fixed: bytes of the fixed part of the payload
 */
struct uec_desc {
	char name[UEC_MAX_NAME];
	char text[UEC_MAX_DESC];
	struct uec_field fields[UEC_MAX_FIELDS];
	int nr_fields;
	unsigned int fixed;
};

/*
 * Functions return 0 (or a length) or a negative errno; on error @err
 * (@errlen bytes) gets a message for the user.
 */

/* Parse "name[:flags] [type name[; type name...]]" */
int uec_parse_desc(const char *desc, struct uec_desc *d, char *err, size_t errlen);

/*
 * Rebuild the description of event @name from the text of its tracefs
 * "format" file, checking the offsets and sizes it lists.
 */
int uec_desc_from_format(const char *format, struct uec_desc *d, char *err,
			 size_t errlen);

/*
 * Find "u:name[:flags] fields", the line of the default group's event
 * @name, in the text of dynamic_events ("u:user_events/name..." too).
 * Returns -ENOENT when it is not there.
 */
int uec_desc_from_dynamic_events(const char *text, const char *name,
				 struct uec_desc *d, char *err, size_t errlen);

/*
 * Lay out a payload into @rec (@max bytes) from @n "FIELD=VALUE" strings;
 * fields not given are zero (strings empty). Returns the payload length.
 */
int uec_encode(const struct uec_desc *d, const char * const *assign, int n,
	       unsigned char *rec, size_t max, char *err, size_t errlen);

/* What a FIELD=VALUE of field @f looks like, for messages */
const char *uec_value_hint(const struct uec_field *f);

#endif /* _USER_EVENTS_ENCODE_H */
