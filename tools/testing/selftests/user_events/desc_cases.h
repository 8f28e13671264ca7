/* SPDX-License-Identifier: GPL-2.0 */
/*
 * desc_cases.h: descriptions of user events, each accepted (with the form
 * dynamic_events shows it back in) or refused with EINVAL. One table for
 * the kernel's grammar, read by two tests so the two parsers cannot drift:
 * dyn_test writes each as "u:<description>" to dynamic_events on the test
 * kernel; test_encode (tools/lib/user_events) gives each to the
 * user_events command's parser (tools/tracing/user_events/encode.c).
 *
 * Each case: an id (dyn_test's variant name), the description and the
 * canonical form, or NULL for a description refused with EINVAL.
 */
#ifndef _UE_DESC_CASES_H
#define _UE_DESC_CASES_H

struct ue_desc_case {
	const char *id;
	const char *desc;
	const char *canonical;
};

static const struct ue_desc_case ue_desc_cases[] = {
	{ "no_fields", "dyn_t", "dyn_t" },
	{ "u8", "dyn_t u8 a", "dyn_t u8 a" },
	{ "s8", "dyn_t s8 a", "dyn_t s8 a" },
	{ "u16", "dyn_t u16 a", "dyn_t u16 a" },
	{ "s16", "dyn_t s16 a", "dyn_t s16 a" },
	{ "u32", "dyn_t u32 a", "dyn_t u32 a" },
	{ "s32", "dyn_t s32 a", "dyn_t s32 a" },
	{ "u64", "dyn_t u64 a", "dyn_t u64 a" },
	{ "s64", "dyn_t s64 a", "dyn_t s64 a" },
	{ "char", "dyn_t char a", "dyn_t char a" },
	{ "short", "dyn_t short a", "dyn_t short a" },
	{ "int", "dyn_t int a", "dyn_t int a" },
	{ "uchar", "dyn_t unsigned char a", "dyn_t unsigned char a" },
	{ "ushort", "dyn_t unsigned short a", "dyn_t unsigned short a" },
	{ "uint", "dyn_t unsigned int a", "dyn_t unsigned int a" },
	{ "chars", "dyn_t char[20] a", "dyn_t char[20] a" },
	{ "chars_hex", "dyn_t char[0x10] a", "dyn_t char[16] a" },
	{ "chars_max", "dyn_t char[1024] a", "dyn_t char[1024] a" },
	{ "uchars", "dyn_t unsigned char[3] a", "dyn_t unsigned char[3] a" },
	{ "data_loc", "dyn_t __data_loc char[] a", "dyn_t __data_loc char[] a" },
	{ "rel_loc", "dyn_t __rel_loc char[] a", "dyn_t __rel_loc char[] a" },
	{ "rel_loc_u8", "dyn_t __rel_loc u8[] a", "dyn_t __rel_loc u8[] a" },
	{ "data_loc_uc", "dyn_t __data_loc unsigned char[] a",
	  "dyn_t __data_loc unsigned char[] a" },
	{ "struct", "dyn_t struct foo a 24", "dyn_t struct foo a 24" },
	{ "spaces", "dyn_t   u32  a ;u64\tb;", "dyn_t u32 a; u64 b" },
	{ "flags", "dyn_t:BPF_ITER u32 a", "dyn_t:BPF_ITER u32 a" },
	{ "unknown_flag", "dyn_t:BPF_ITER,NEW_THING u32 a", "dyn_t:BPF_ITER,NEW_THING u32 a" },
	{ "digits_in_name", "dyn_t u32 a2_b", "dyn_t u32 a2_b" },
	{ "bad_empty_name", " u32 a", NULL },
	{ "bad_digit_name", "1dyn u32 a", NULL },
	{ "bad_dash_name", "dyn-t u32 a", NULL },
	{ "bad_dot_name", "dyn.t u32 a", NULL },
	{ "bad_slash_name", "a/dyn_t u32 a", NULL },
	{ "bad_unknown_type", "dyn_t u128 a", NULL },
	{ "bad_long", "dyn_t long a", NULL },
	{ "bad_ulong", "dyn_t unsigned long a", NULL },
	{ "bad_size_on_int", "dyn_t u32 a 4", NULL },
	{ "bad_struct_no_size", "dyn_t struct foo a", NULL },
	{ "bad_struct_zero", "dyn_t struct foo a 0", NULL },
	{ "bad_struct_huge", "dyn_t struct foo a 1025", NULL },
	{ "bad_array_huge", "dyn_t char[1025] a", NULL },
	{ "bad_array_zero", "dyn_t char[0] a", NULL },
	{ "bad_array_junk", "dyn_t char[x] a", NULL },
	{ "bad_array_u32", "dyn_t u32[4] a", NULL },
	{ "bad_loc_sized", "dyn_t __data_loc char[4] a", NULL },
	{ "bad_loc_no_array", "dyn_t __rel_loc char a", NULL },
	{ "bad_no_field_name", "dyn_t u32", NULL },
	{ "bad_bad_field_name", "dyn_t u32 a-b", NULL },
	{ "bad_digit_field_name", "dyn_t u32 9a", NULL },
	{ "bad_dup_field", "dyn_t u32 a; u64 a", NULL },
	{ "bad_empty_field", "dyn_t u32 a;; u32 b", NULL },
	{ "bad_leading_semicolon", "dyn_t ; u32 a", NULL },
	{ "bad_only_semicolon", "dyn_t ;", NULL },
	{ "bad_two_trailing", "dyn_t u32 a;;", NULL },
	{ "bad_empty_flags", "dyn_t: u32 a", NULL },
	{ "bad_bad_flag_sep", "dyn_t:A,,B u32 a", NULL },
	{ "bad_unbalanced", "dyn_t char[4 a", NULL },
	/*
	 * Found by fuzz_test: a long type word was cut at 31 characters.
	 * Leading zeros are refused in hex too, however many: the long word is
	 * an error.
	 */
	{ "bad_long_hex", "dyn_t char[0x0000000000000000000000010] a", NULL },
	{ "bad_hex_leading_zero", "dyn_t char[0x014] a", NULL },
	{ "bad_hex_leading_zeros", "dyn_t char[0x0000000000001] a", NULL },
	{ "chars_hex_upper", "dyn_t char[0X1f] a", "dyn_t char[31] a" },
	{ "bad_long_type_junk", "dyn_t char[0x00000000000000000000001]JUNK a", NULL },
	/* Sizes are decimal or 0x hex: no leading 0 (octal in C), no sign */
	{ "bad_array_octal_zero", "dyn_t char[00] a", NULL },
	{ "bad_array_hex_zero", "dyn_t char[0x0] a", NULL },
	{ "bad_array_hex_empty", "dyn_t char[0x] a", NULL },
	{ "bad_array_hex_huge", "dyn_t char[0x401] a", NULL },
	{ "bad_array_digit_junk", "dyn_t char[12a] a", NULL },
	{ "bad_array_hex_junk", "dyn_t char[0x1g] a", NULL },
	{ "bad_array_minus", "dyn_t char[-5] a", NULL },
	{ "bad_array_empty", "dyn_t char[] a", NULL },
	{ "bad_struct_hex_zero", "dyn_t struct foo a 0x06", NULL },
	{ "chars_hex_max", "dyn_t char[0x400] a", "dyn_t char[1024] a" },
	{ "uchars_max", "dyn_t unsigned char[1024] a", "dyn_t unsigned char[1024] a" },
	{ "struct_hex", "dyn_t struct foo a 0x10", "dyn_t struct foo a 16" },
	{ "bad_array_octal", "dyn_t char[010] a", NULL },
	{ "bad_array_plus", "dyn_t char[+4] a", NULL },
	{ "bad_struct_octal", "dyn_t struct foo a 010", NULL },
	/* Names are ASCII: the kernel's isalnum() would take Latin-1 letters */
	{ "bad_latin1_name", "dyn_t\xe9 u32 a", NULL },
	{ "bad_latin1_field", "dyn_t u32 a\xe9", NULL },
	{ "bad_latin1_flag", "dyn_t:BPF_ITER\xc0 u32 a", NULL },
	/*
	 * Only space, tab and newline separate words: other white space is an
	 * invalid character (dyn_test cannot send a newline inside a command:
	 * ftrace_test's register_reuse sends one through the ioctl)
	 */
	{ "bad_vtab_separator", "dyn_t u32\va", NULL },
	{ "bad_formfeed_separator", "dyn_t u32\fa", NULL },
	{ "bad_cr_separator", "dyn_t u32\ra", NULL },
	{ "bad_nbsp_separator", "dyn_t u32\240a", NULL },
	/*
	 * Field names: 1 to 255 characters, as event names (struct type names
	 * too: dyn_test's name_lengths, for the command's encoder keeps 72)
	 */
	{ "field_name_255",
	  "dyn_t u32 nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn",
	  "dyn_t u32 nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"
	},
	{ "bad_field_name_256",
	  "dyn_t u32 nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn",
	  NULL },
	/* Loc arrays of wider elements */
	{ "rel_loc_u16", "dyn_t __rel_loc u16[] a", "dyn_t __rel_loc u16[] a" },
	{ "data_loc_s32", "dyn_t __data_loc s32[] a", "dyn_t __data_loc s32[] a" },
	{ "rel_loc_u64", "dyn_t __rel_loc u64[] a", "dyn_t __rel_loc u64[] a" },
	/* The record's header fields are common_*; filters must not see two */
	{ "bad_common_field", "dyn_t u32 common_pid", NULL },
};

#endif
