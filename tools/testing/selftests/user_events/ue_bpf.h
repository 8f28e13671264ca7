/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eBPF for the user_events tests and ue_bench: programs are assembled with
 * the macros below and loaded with the bpf() system call, so no compiler or
 * library is needed. Array maps keyed by a u32 carry what the programs saw.
 */
#ifndef UE_BPF_H
#define UE_BPF_H

#include <errno.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })
#define MOV_REG(d, s)	INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV_IMM(d, i)	INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADD_IMM(d, i)	INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define ADD_REG(d, s)	INSN(BPF_ALU64 | BPF_ADD | BPF_X, d, s, 0, 0)
#define MUL32_IMM(d, i)	INSN(BPF_ALU | BPF_MUL | BPF_K, d, 0, 0, i)
#define ADD32_REG(d, s)	INSN(BPF_ALU | BPF_ADD | BPF_X, d, s, 0, 0)
#define LDX(sz, d, s, o) INSN(BPF_LDX | (sz) | BPF_MEM, d, s, o, 0)
#define STX(sz, d, s, o) INSN(BPF_STX | (sz) | BPF_MEM, d, s, o, 0)
#define ST_IMM(sz, d, o, i) INSN(BPF_ST | (sz) | BPF_MEM, d, 0, o, i)
#define LOCK_ADD(d, s, o) INSN(BPF_STX | BPF_DW | BPF_ATOMIC, d, s, o, BPF_ADD)
#define JEQ_IMM(d, i, o) INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define JNE_IMM(d, i, o) INSN(BPF_JMP | BPF_JNE | BPF_K, d, 0, o, i)
#define JGT_IMM(d, i, o) INSN(BPF_JMP | BPF_JGT | BPF_K, d, 0, o, i)
#define JEQ_REG(d, s, o) INSN(BPF_JMP | BPF_JEQ | BPF_X, d, s, o, 0)
#define JA(o)		INSN(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define CALL(f)		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
/* a 64-bit immediate takes two slots: the map fd, then nothing */
#define LD_MAP(d, fd)	INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd)
#define LD_IMM_HI()	INSN(0, 0, 0, 0, 0)

static inline int uet_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* An array map of @entries values of @value_size bytes; an fd or -1 */
static inline int uet_bpf_map(unsigned int value_size, unsigned int entries)
{
	union bpf_attr attr = {
		.map_type = BPF_MAP_TYPE_ARRAY,
		.key_size = 4,
		.value_size = value_size,
		.max_entries = entries,
	};

	return uet_bpf(BPF_MAP_CREATE, &attr);
}

/* Entry @key of @map into @value; 0 or -1 */
static inline int uet_bpf_map_read(int map, __u32 key, void *value)
{
	union bpf_attr attr = {
		.map_fd = map,
		.key = (unsigned long)&key,
		.value = (unsigned long)value,
	};

	return uet_bpf(BPF_MAP_LOOKUP_ELEM, &attr);
}

/* @value into entry @key of @map; 0 or -1 */
static inline int uet_bpf_map_write(int map, __u32 key, const void *value)
{
	union bpf_attr attr = {
		.map_fd = map,
		.key = (unsigned long)&key,
		.value = (unsigned long)value,
	};

	return uet_bpf(BPF_MAP_UPDATE_ELEM, &attr);
}

/*
 * Load @count instructions as a tracepoint program; an fd, or -1 with errno
 * set and the verifier's log on stderr (it says why a program is refused)
 */
static inline int uet_bpf_load(const struct bpf_insn *insns, unsigned int count)
{
	static char log[65536];
	union bpf_attr attr = {
		.prog_type = BPF_PROG_TYPE_TRACEPOINT,
		.insns = (unsigned long)insns,
		.insn_cnt = count,
		.license = (unsigned long)"GPL",
		.log_buf = (unsigned long)log,
		.log_size = sizeof(log),
		.log_level = 1,
	};
	int fd = uet_bpf(BPF_PROG_LOAD, &attr), err = errno;

	if (fd < 0) {
		fprintf(stderr, "# verifier: %s\n", log);
		errno = err;
	}
	return fd;
}

#endif /* UE_BPF_H */
