/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The layouts and numbers of <linux/user_events.h>, checked at compile
 * time against Linux 6.12's: struct user_reg (28 bytes, packed)
 * and struct user_unreg (16) of the enable-bit ABI, the ioctl numbers and
 * flags; and the status page's own names: struct user_status_reg (24) and
 * the bits and masks of a status byte. A program that
 * includes it fails to build if any of them moved. header64_test includes
 * it as a 64-bit program, compat_test as a 32-bit one: the layouts are the
 * same for both.
 */
#ifndef UE_LAYOUT_H
#define UE_LAYOUT_H

#include <assert.h>
#include <stddef.h>
#include <linux/user_events.h>

/* Where @member of @type is (@off), and its size (@size) */
#define UE_OFFSET(type, member, off)					\
	static_assert(offsetof(type, member) == (off), #type "." #member " at " #off)
#define UE_SIZE(type, member, size)					\
	static_assert(sizeof((*(type *)0).member) == (size),		\
		      #type "." #member ": " #size " bytes")

static_assert(sizeof(struct user_reg) == 28, "struct user_reg: 28 bytes");
UE_OFFSET(struct user_reg, size, 0);
UE_SIZE(struct user_reg, size, 4);
UE_OFFSET(struct user_reg, enable_bit, 4);
UE_SIZE(struct user_reg, enable_bit, 1);
UE_OFFSET(struct user_reg, enable_size, 5);
UE_SIZE(struct user_reg, enable_size, 1);
UE_OFFSET(struct user_reg, flags, 6);
UE_SIZE(struct user_reg, flags, 2);
UE_OFFSET(struct user_reg, enable_addr, 8);
UE_SIZE(struct user_reg, enable_addr, 8);
UE_OFFSET(struct user_reg, name_args, 16);
UE_SIZE(struct user_reg, name_args, 8);
UE_OFFSET(struct user_reg, write_index, 24);
UE_SIZE(struct user_reg, write_index, 4);

static_assert(sizeof(struct user_unreg) == 16, "struct user_unreg: 16 bytes");
UE_OFFSET(struct user_unreg, size, 0);
UE_SIZE(struct user_unreg, size, 4);
UE_OFFSET(struct user_unreg, disable_bit, 4);
UE_SIZE(struct user_unreg, disable_bit, 1);
UE_OFFSET(struct user_unreg, __reserved, 5);
UE_SIZE(struct user_unreg, __reserved, 1);
UE_OFFSET(struct user_unreg, __reserved2, 6);
UE_SIZE(struct user_unreg, __reserved2, 2);
UE_OFFSET(struct user_unreg, disable_addr, 8);
UE_SIZE(struct user_unreg, disable_addr, 8);

static_assert(sizeof(struct user_status_reg) == 24,
	      "struct user_status_reg: 24 bytes");
UE_OFFSET(struct user_status_reg, size, 0);
UE_SIZE(struct user_status_reg, size, 4);
UE_OFFSET(struct user_status_reg, name_args, 8);
UE_SIZE(struct user_status_reg, name_args, 8);
UE_OFFSET(struct user_status_reg, status_index, 16);
UE_SIZE(struct user_status_reg, status_index, 4);
UE_OFFSET(struct user_status_reg, write_index, 20);
UE_SIZE(struct user_status_reg, write_index, 4);

/* the ioctl numbers encode a pointer's size, whatever the struct */
static_assert(_IOWR('*', 0, void *) == DIAG_IOCSREG, "DIAG_IOCSREG");
static_assert(_IOW('*', 1, void *) == DIAG_IOCSDEL, "DIAG_IOCSDEL");
static_assert(_IOW('*', 2, void *) == DIAG_IOCSUNREG, "DIAG_IOCSUNREG");

static_assert(USER_EVENT_REG_PERSIST == 1 && USER_EVENT_REG_MULTI_FORMAT == 2 &&
	      USER_EVENT_REG_MAX == 4, "enum user_reg_flag");
static_assert(DYN_LOC(4, 12) == (12 << 16 | 4), "DYN_LOC(offset, size)");

/* a status byte: bit 0 ftrace, bit 1 perf (eBPF too), bit 7 reserved */
static_assert(EVENT_BIT_FTRACE == 0 && EVENT_BIT_PERF == 1 && EVENT_BIT_OTHER == 7,
	      "EVENT_BIT_*");
static_assert(EVENT_STATUS_FTRACE == 0x01 && EVENT_STATUS_PERF == 0x02 &&
	      EVENT_STATUS_OTHER == 0x80, "EVENT_STATUS_*");

#endif /* UE_LAYOUT_H */
