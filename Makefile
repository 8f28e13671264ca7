# user_events: build, boot and test our kernel feature from this overlay.
# `make` runs the demo in a VM, `make check` runs every test; `make help`.

BUILD_DIR ?= $(CURDIR)/build
export BUILD_DIR KERNEL_SRC KERNEL_TARBALL

S := scripts
DEMO := tools/user_events/demo

.PHONY: all demo check bench bench-profile fuzz soak poke-stress patches patches-check patches-fold patches-conformance kernel bench-kernel selftests lint tree deps shell help clean distclean

all: demo

help:
	@echo 'make            build the test kernel, boot it and run the demo'
	@echo 'make check      build everything and run every test (kselftests in the VM)'
	@echo 'make bench      build the bench and peer kernels, run ue_bench in both (-icount);'
	@echo '                writes build/bench/results.csv, results.md and cost.png'
	@echo 'make bench-profile  instructions per kernel function of one write of each'
	@echo '                bench case, single-stepped with gdb (build/bench/profile-ours.txt)'
	@echo 'make fuzz       fuzz descriptions and payloads in the VM for FUZZ_MINUTES (10), FUZZ_SEED'
	@echo 'make soak       the long runs make check leaves out (soak_test) in the VM'
	@echo 'make poke-stress  patch the sched tracepoints POKE_ITERATIONS (200) times while'
	@echo '                both vCPUs run them: proves the VM runs live-patched kernel text'
	@echo 'make patches    apply the series of patches/ to the pristine base tree, check it'
	@echo '                ends at the overlay, write it (and a cover letter) to build/patches/;'
	@echo '                checkpatch --strict on it'
	@echo 'make patches-fold P=N [F="FILE..."] [NEW=MSGFILE]  fold a change of the overlay'
	@echo '                into patch N of the series, or (NEW) make it a patch of its own'
	@echo '                (after patch P if given); scripts/patches-fold --help'
	@echo 'make patches-conformance  boot the kernel of each commit of the series that'
	@echo '                changes it and run Linux 6.12'"'"'s user_events selftests on it'
	@echo 'make patches-check  make patches, then git am each patch on the base tree'
	@echo '                and build after each (kernel, library, command, selftests)'
	@echo 'make kernel     prepare the tree and build the test kernel only'
	@echo 'make bench-kernel  build the bench kernel flavour (no debug options)'
	@echo 'make selftests  build the kselftests on the host'
	@echo 'make lint       checkpatch --strict, sparse and W=1 on the kernel side'
	@echo 'make shell CMD="..."  run CMD in the VM (default: uname -a)'
	@echo 'make clean      drop kernel objects and test builds (keeps the unpacked tree)'
	@echo 'make distclean  drop build/ entirely'
	@echo
	@echo 'KERNEL_TARBALL=path.tar.xz or KERNEL_SRC=dir choose the base tree'
	@echo '(default /usr/src/linux-source-6.12.tar.xz, from Debian linux-source-6.12).'

deps:
	@$(S)/deps

tree: deps
	@$(S)/prepare-tree

kernel: tree
	@$(S)/build-kernel test

bench-kernel: tree
	@$(S)/build-kernel bench

selftests: kernel
	@$(S)/build-selftests test

lint: kernel
	@$(S)/lint

demo: kernel
	@$(MAKE) -s -C $(DEMO) UAPI_INCLUDE=$(BUILD_DIR)/obj-test/usr/include
	@$(S)/vm-run --no-leak-scan -- $(DEMO)/demo

check:
	@$(S)/check

bench:
	@$(S)/bench

bench-profile:
	@$(S)/bench-profile

fuzz:
	@$(S)/fuzz

soak:
	@$(S)/soak

poke-stress: kernel
	@$(S)/poke-stress

patches: deps
	@$(S)/patches

patches-check: deps
	@$(S)/patches-check

patches-conformance: selftests
	@$(S)/build-conformance
	@$(S)/patches-conformance

patches-fold:
	@$(S)/patches-fold $(if $(NEW),--new $(NEW) $(if $(P),--after $(P)),$(if $(P),$(P),--diff)) $(F)

CMD ?= uname -a
shell: kernel
	@$(S)/vm-run -- sh -c '$(CMD)'

clean:
	rm -rf $(BUILD_DIR)/obj-* $(BUILD_DIR)/kselftest $(BUILD_DIR)/vm $(BUILD_DIR)/check
	-@$(MAKE) -s -C $(DEMO) clean 2>/dev/null

distclean:
	rm -rf $(BUILD_DIR)
