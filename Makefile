# xtx - lock-free AF_XDP transmit path. One top-level Makefile.
#
#   make              libxtx.a/.so, tools, BPF objects (build/release); installs nothing,
#                     says which packages are missing (make deps installs them)
#   make test         every test: unit + stress (release, ASan+UBSan, TSan) and network tests
#   make test-quick   release unit + stress tests and fuzz corpus replays (no network)
#   make bench-mpsc   the MPSC stage benchmark against its peers (docs/BENCHMARKS.md)
#   make bench-sched  the scheduler benchmark against rte_sched, and device-wide classes
#                     at 1 and 2 queues
#   make bench-e2e    end to end on the veth testbed against plain AF_XDP and kernel HTB
#   make bench-line   the whole engine on the null device: Mpps and CPU ns per packet per
#                     side, beside the rings-only limit and DPDK testpmd on net_null
#   make bench-compare xtx-compare on the testbed: every path beside the kernel's qdiscs
#   make bench-forward xtx-shape beside kernel forwarding with tc htb (three namespaces)
#   make bench-compare-forward  the same through xtx-compare --mode forward
#   make bench        all seven; each rewrites its section of docs/BENCHMARKS.md
#   make demo         xtx beside the kernel's HTB on a throwaway testbed
#   make soak         10 min at full rate with link flaps; RSS and frames must stay flat
#   make fuzz         libFuzzer on each tests/fuzz target for FUZZ_SECONDS (default 60)
#   make install PREFIX=/usr/local [DESTDIR=...]: the library, headers, libxtx.pc, the
#                     tools (sbin; xtx-ctl in bin), their man pages and the class and
#                     rules files' (build/man, `make man`), xtx-shape@.service
#   make deps         install missing Debian packages (tools/deps.sh)
#
# VARIANT=release|asan|tsan selects the build flavour; each has its own tree under build/.

VARIANT ?= release
OUT     := build/$(VARIANT)
PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include
ifeq ($(origin CC),default)
CC      := gcc
endif
CLANG   ?= clang
VERSION := 0.1.0

ifeq ($(V),1)
Q :=
else
Q := @
endif

WARN   := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# libxtx is a folder per component under userspace/: util/ (memory, NIC facts), stage/
# (the MPSC stage), sched/ (the scheduler), engine/ (sockets, threads, the pool). Tests,
# tools and benchmarks see every internal header; the stage and the scheduler are built
# with CORE_INC only (below), so that an #include of the engine's API or internals
# fails their build.
INC_ALL := -Iinclude -Iuserspace/util -Iuserspace/stage -Iuserspace/sched -Iuserspace/engine \
	   -Ibuild/bpf
CFLAGS := -std=gnu11 -g -fPIC -pthread -D_GNU_SOURCE $(INC_ALL) $(WARN)
LDLIBS := -pthread

ifeq ($(VARIANT),release)
# Functions start on a cache line: the scheduler's fast paths then keep their speed when an
# unrelated function changes size (bench_sched 1 x 1: enqueue 5.0 -> 8.2 ns/pkt from a
# change in sched_htb.c alone, without this).
CFLAGS += -O2 -falign-functions=64
else ifeq ($(VARIANT),asan)
CFLAGS += -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
else ifeq ($(VARIANT),tsan)
CFLAGS += -O1 -fno-omit-frame-pointer -fsanitize=thread
LDFLAGS += -fsanitize=thread
else
$(error VARIANT must be release, asan or tsan, not '$(VARIANT)')
endif

# The public headers the stage, the scheduler and util/ may use: not xtx.h (the engine's
# API), pkt.h or rxmeta.h. Their objects see these, util/ and their own folder only.
CORE_HDRS := desc.h mpsc.h mpsc_pvt.h print.h sched.h
CORE_DIR  := build/core-include
CORE_INC  := -I$(CORE_DIR) -Iuserspace/util
CFLAGS_NOINC := $(filter-out -I%,$(CFLAGS))
$(OUT)/obj/userspace/stage/%.o: CFLAGS := $(CFLAGS_NOINC) $(CORE_INC) -Iuserspace/stage
$(OUT)/obj/userspace/sched/%.o: CFLAGS := $(CFLAGS_NOINC) $(CORE_INC) -Iuserspace/sched
$(OUT)/obj/userspace/util/%.o: CFLAGS := $(CFLAGS_NOINC) $(CORE_INC)
CORE_LINKS := $(addprefix $(CORE_DIR)/xtx/,$(CORE_HDRS))
$(CORE_DIR)/xtx/%.h: include/xtx/%.h
	@mkdir -p $(@D)
	$(Q)ln -sf $(abspath $<) $@

# Feature probes -> HAVE_* defines (peers for the benchmarks only).
HAVE_DPDK := $(shell pkg-config --exists libdpdk 2>/dev/null && echo 1)
HAVE_CK   := $(shell test -f /usr/include/ck_ring.h && echo 1)
HAVE_XDP  := $(shell pkg-config --exists libxdp libbpf 2>/dev/null && echo 1)
BENCH_CFLAGS :=
BENCH_LIBS   :=
ifeq ($(HAVE_DPDK),1)
BENCH_CFLAGS += -DHAVE_DPDK $(shell pkg-config --cflags libdpdk | sed 's/-I/-isystem /g')
BENCH_LIBS   += $(shell pkg-config --libs libdpdk)
endif
ifeq ($(HAVE_CK),1)
BENCH_CFLAGS += -DHAVE_CK
BENCH_LIBS   += -lck
endif
ifeq ($(HAVE_XDP),1)
XDP_LIBS := $(shell pkg-config --libs libxdp libbpf)
endif

LIB_SRCS  := $(sort $(wildcard userspace/*/*.c))
LIB_OBJS  := $(LIB_SRCS:%.c=$(OUT)/obj/%.o)
LIB_A     := $(OUT)/lib/libxtx.a
LIB_SO    := $(OUT)/lib/libxtx.so
LIB_MAP   := userspace/libxtx.map
LIB_LIBS  := -lnuma $(XDP_LIBS)

TEST_SRCS := $(sort $(wildcard tests/unit/test_*.c tests/stress/stress_*.c tests/net/test_*.c))
TEST_BINS := $(TEST_SRCS:tests/%.c=$(OUT)/tests/%)
TEST_LIB  := $(sort $(wildcard tests/lib/*.c))
TEST_LOBJ := $(TEST_LIB:%.c=$(OUT)/obj/%.o)
# Test builds compile the test-only fault points into the inline fast paths.
TEST_CFLAGS := -DXTX_FAULT_INJECT -Itests/lib
# The random scheduler test once more on a scheduler built without sch_htb's hysteresis
# (XTX_SCHED_HYSTERESIS=0, the kernel's default): its sources compiled in, not libxtx.
SCHED_SRCS := $(sort $(wildcard userspace/sched/*.c userspace/util/*.c))
NOHYST_BIN := $(OUT)/tests/unit/test_sched_random_nohyst

# Fuzz targets: LLVMFuzzerTestOneInput in tests/fuzz/fuzz_NAME.c, corpus in
# tests/fuzz/corpus/NAME/. make test replays the corpus (replay.c as main) in the release
# and asan builds; make fuzz runs libFuzzer (clang) on each for FUZZ_SECONDS.
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_REPLAY := $(FUZZ_SRCS:tests/fuzz/%.c=$(OUT)/tests/fuzz/%_replay)
FUZZ_SECONDS ?= 60

BENCH_SRCS := $(sort $(wildcard tools/bench/bench_*.c))
BENCH_BINS := $(BENCH_SRCS:tools/bench/%.c=$(OUT)/bin/%)

# Each tools/<name>/ folder with a main.c is one program named <name>.
TOOL_DIRS := $(patsubst %/main.c,%,$(wildcard tools/*/main.c))
TOOL_BINS := $(TOOL_DIRS:tools/%=$(OUT)/bin/%)

BPF_SRCS := $(sort $(wildcard xdp/*.bpf.c))
BPF_OBJS := $(BPF_SRCS:xdp/%.bpf.c=build/bpf/%.bpf.o)
BPF_SKELS := $(BPF_SRCS:xdp/%.bpf.c=build/bpf/%.skel.h)
BPF_CFLAGS := -O2 -g -target bpf -Wall -Werror -Ixdp -Iinclude -I/usr/include/$(shell gcc -dumpmachine)

.PHONY: all depcheck built deps lib tools bpf man tests test test-quick test-build bench bench-mpsc bench-sched bench-e2e bench-line \
        bench-compare bench-forward bench-compare-forward fuzz soak \
        install clean demo
.DEFAULT_GOAL := all
.SECONDARY:

# Plain make installs nothing: it says what is missing. The targets that run tests,
# benchmarks or the demo install it first (deps), as make deps does.
all: depcheck
	$(Q)$(MAKE) --no-print-directory lib tools bpf

depcheck:
	$(Q)tools/deps.sh --check || { echo "make: run 'make deps' as root first (installs them)" >&2; exit 1; }

built: deps
	$(Q)$(MAKE) --no-print-directory lib tools bpf

deps:
	$(Q)tools/deps.sh

lib: $(LIB_A) $(LIB_SO)
tools: $(TOOL_BINS) $(BENCH_BINS)
bpf: $(BPF_OBJS) $(BPF_SKELS)
tests: $(TEST_BINS) $(NOHYST_BIN) $(if $(filter tsan,$(VARIANT)),,$(FUZZ_REPLAY))

$(OUT)/obj/%.o: %.c $(wildcard include/xtx/*.h userspace/*/*.h tests/lib/*.h) | $(CORE_LINKS)
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(OUT)/obj/tests/%.o: tests/%.c $(wildcard include/xtx/*.h tests/lib/*.h)
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) $(TEST_CFLAGS) -MMD -MP -c $< -o $@

# The engine embeds the pass program it attaches for zero-copy (zcprog.c).
$(OUT)/obj/userspace/engine/zcprog.o: build/bpf/xtx_pass.skel.h

# Objects also depend on the headers they include, as the compiler found them.
-include $(shell find $(OUT)/obj -name '*.d' 2>/dev/null)

$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(@D)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIB_SO): $(LIB_OBJS) $(LIB_MAP)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -shared -Wl,--version-script=$(LIB_MAP) -Wl,-soname,libxtx.so.0 \
		$(LDFLAGS) -o $@ $(LIB_OBJS) $(LIB_LIBS) $(LDLIBS)

$(OUT)/tests/%: tests/%.c $(LIB_A) $(TEST_LOBJ) $(wildcard include/xtx/*.h tests/lib/*.h) $(BPF_SKELS)
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) $(TEST_CFLAGS) $(LDFLAGS) -o $@ $< $(filter $(OUT)/obj/tools/%.o,$^) \
		$(TEST_LOBJ) $(LIB_A) $(LIB_LIBS) $(LDLIBS) -lm

# A test of a tool's code links that file's object (compiled once, by the $(OUT)/obj/%.o
# rule) and sees its header; `private` keeps the include path off the prerequisites.
$(OUT)/obj/tools/common/dstguard.o: tools/common/dstguard.h
$(OUT)/tests/unit/test_dstguard: $(OUT)/obj/tools/common/dstguard.o
$(OUT)/tests/unit/test_dstguard: private TEST_CFLAGS += -Itools/common
$(OUT)/obj/tools/common/units.o: tools/common/units.h
$(OUT)/tests/unit/test_units: $(OUT)/obj/tools/common/units.o
$(OUT)/tests/unit/test_units: private TEST_CFLAGS += -Itools/common
# xtx-shape's rules: the classifier's tests (the fuzz targets: below).
RULES_OBJ   := $(OUT)/obj/tools/xtx-shape/rules.o
RULES_TESTS := $(OUT)/tests/unit/test_redirect_bpf $(OUT)/tests/net/test_receive
$(RULES_OBJ): tools/xtx-shape/rules.h xdp/xtx_redirect.h
$(RULES_TESTS): $(RULES_OBJ)
$(RULES_TESTS): private TEST_CFLAGS += -Itools/xtx-shape
# xtx-compare's tc translation and JSON reader; the helpers both its modes share (a
# measurement's record and figures, command lines, child processes), with tools/common's
# clock. Its objects see tools/common, as the tool's build does.
COMPARE_OBJS := $(OUT)/obj/tools/xtx-compare/tc.o $(OUT)/obj/tools/xtx-compare/json.o
COMPARE_MEAS_OBJS := $(COMPARE_OBJS) $(OUT)/obj/tools/common/cli.o \
	$(addprefix $(OUT)/obj/tools/xtx-compare/,meas.o argv.o proc.o)
$(OUT)/obj/tools/xtx-compare/%.o: private CFLAGS += -Itools/common
$(OUT)/obj/tools/xtx-compare/tc.o: tools/xtx-compare/tc.h
$(OUT)/obj/tools/xtx-compare/json.o: tools/xtx-compare/json.h
$(OUT)/tests/unit/test_compare_tc: $(COMPARE_OBJS)
$(OUT)/tests/unit/test_compare_tc: private TEST_CFLAGS += -Itools/xtx-compare
$(OUT)/tests/unit/test_compare_meas: $(COMPARE_MEAS_OBJS)
$(OUT)/tests/unit/test_compare_meas: private TEST_CFLAGS += -Itools/xtx-compare -Itools/common

$(NOHYST_BIN): tests/unit/test_sched_random.c $(SCHED_SRCS) $(TEST_LIB) \
		$(wildcard include/xtx/*.h userspace/*/*.h tests/lib/*.h)
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) $(TEST_CFLAGS) -DXTX_SCHED_HYSTERESIS=0 $(LDFLAGS) -o $@ $< \
		$(SCHED_SRCS) $(TEST_LIB) -lnuma $(LDLIBS) -lm

$(OUT)/tests/fuzz/%_replay: tests/fuzz/%.c $(wildcard tests/fuzz/*.h) tests/fuzz/replay.c tests/lib/netns.c $(LIB_A) \
		$(BPF_SKELS) $(wildcard include/xtx/*.h xdp/*.h tests/lib/*.h)
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) -Itests/lib $(FUZZ_INC) $(LDFLAGS) -o $@ $< tests/fuzz/replay.c \
		tests/lib/netns.c $(filter $(OUT)/obj/tools/%.o,$^) $(LIB_A) $(LIB_LIBS) $(LDLIBS)

FUZZ_CFLAGS := -g -O1 -std=gnu11 -D_GNU_SOURCE $(INC_ALL) \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
build/fuzz/%: tests/fuzz/%.c $(wildcard tests/fuzz/*.h) tests/lib/netns.c $(LIB_SRCS) $(BPF_SKELS) \
		$(wildcard include/xtx/*.h userspace/*/*.h tests/lib/*.h)
	@mkdir -p $(@D)
	@echo "  FUZZ    $@"
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -Itests/lib $(FUZZ_INC) -o $@ $< tests/lib/netns.c \
		$(filter tools/%.c,$^) $(LIB_SRCS) $(LIB_LIBS) -pthread -lm

# The fuzz targets of xtx-shape's rules link rules.c: a replay its object, libFuzzer its
# source (compiled in the clang command above, instrumented).
FUZZ_RULES        := fuzz_rules fuzz_redirect
FUZZ_RULES_REPLAY := $(FUZZ_RULES:%=$(OUT)/tests/fuzz/%_replay)
FUZZ_RULES_FUZZ   := $(FUZZ_RULES:%=build/fuzz/%)
$(FUZZ_RULES_REPLAY): $(RULES_OBJ)
$(FUZZ_RULES_FUZZ): tools/xtx-shape/rules.c tools/xtx-shape/rules.h
$(FUZZ_RULES_REPLAY) $(FUZZ_RULES_FUZZ): private FUZZ_INC := -Itools/xtx-shape

# Each target for FUZZ_SECONDS; new inputs go to build/fuzz/corpus-NAME, crashes into
# the committed corpus (so they become regression tests) and fail the run.
fuzz: deps bpf $(FUZZ_SRCS:tests/fuzz/%.c=build/fuzz/%)
	$(Q)set -e; for t in $(FUZZ_SRCS:tests/fuzz/fuzz_%.c=%); do \
		mkdir -p build/fuzz/corpus-$$t; \
		echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
		rc=0; build/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			-error_exitcode=1 -artifact_prefix=tests/fuzz/corpus/$$t/ \
			build/fuzz/corpus-$$t tests/fuzz/corpus/$$t >build/fuzz/$$t.log 2>&1 || rc=$$?; \
		grep -E "^(#[0-9]+.*DONE|stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY)" \
			build/fuzz/$$t.log || true; \
		if [ $$rc != 0 ]; then \
			tail -40 build/fuzz/$$t.log; \
			echo "fuzz: $$t failed (exit $$rc); log build/fuzz/$$t.log, input kept in tests/fuzz/corpus/$$t/"; \
			exit 1; \
		fi; \
	done

$(OUT)/bin/bench_%: tools/bench/bench_%.c $(LIB_A) $(wildcard include/xtx/*.h tools/bench/*.h)
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) $(BENCH_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_A) \
		$(LIB_LIBS) $(BENCH_LIBS) $(LDLIBS) -lm

# tools/common/ (no main.c, so not a program) is linked into every tool.
TOOL_COMMON := $(wildcard tools/common/*.c tools/common/*.h)
.SECONDEXPANSION:
$(OUT)/bin/%: $$(wildcard tools/$$*/*.c tools/$$*/*.h) $(TOOL_COMMON) $(LIB_A) \
		$(wildcard include/xtx/*.h) $(BPF_SKELS)
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) -Itools/common $(LDFLAGS) -o $@ $(filter %.c,$^) $(LIB_A) \
		$(LIB_LIBS) $(LDLIBS) -lm

build/bpf/%.bpf.o: xdp/%.bpf.c $(wildcard xdp/*.h include/xtx/payload.h include/xtx/rxmeta.h \
		include/xtx/pkt_hash_pvt.h)
	@mkdir -p $(@D)
	@echo "  BPF     $@"
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# Skeletons embed the BPF object in the program that loads it (bpftool gen skeleton).
build/bpf/%.skel.h: build/bpf/%.bpf.o
	@echo "  SKEL    $@"
	$(Q)bpftool gen skeleton $< name $(subst -,_,$*) > $@.tmp && mv $@.tmp $@

# --- tests -------------------------------------------------------------------
# One line per test, then "N passed, N failed, N skipped"; non-zero exit on failure.
test-build: deps
	$(Q)$(MAKE) --no-print-directory VARIANT=release lib tools bpf tests
	$(Q)$(MAKE) --no-print-directory VARIANT=asan lib tests
	$(Q)$(MAKE) --no-print-directory VARIANT=tsan lib tests

test: test-build
	$(Q)tests/run-tests.sh

# Release unit and stress tests and the fuzz corpora, no network test: under a minute.
test-quick: depcheck
	$(Q)$(MAKE) --no-print-directory VARIANT=release lib tests
	$(Q)XTX_TEST_VARIANTS=release XTX_TEST_NET=0 tests/run-tests.sh

# --- benchmarks --------------------------------------------------------------
bench-mpsc: built
	$(Q)tools/bench/report.sh mpsc "MPSC stage: items per second against its peers" \
		$(OUT)/bin/bench_mpsc --runs 7

bench-sched: built
	$(Q)tools/bench/report.sh sched "Scheduler: ns per packet (enqueue + dequeue)" \
		$(OUT)/bin/bench_sched --runs 5 --cpu-time

bench-e2e: built
	$(Q)tools/bench/report.sh e2e "End to end on veth: packets per second at the receiver" \
		tools/bench/e2e.sh --runs 3

bench-line: built
	$(Q)tools/bench/report.sh line "Line rate: the whole engine on the null device" \
		tools/bench/line.sh --runs 5

bench-compare: built
	$(Q)tools/bench/report.sh compare "xtx beside the kernel's qdisc paths (xtx-compare)" \
		tools/bench/compare.sh --runs 3

bench-forward: built
	$(Q)tools/bench/report.sh forward "Forwarding through a shaper: xtx-shape beside kernel forwarding + tc htb" \
		tools/bench/forward.sh --runs 3

bench-compare-forward: built
	$(Q)tools/bench/report.sh compare-forward "Forwarding, measured by xtx-compare --mode forward" \
		tools/bench/compare_forward.sh --runs 3

# 10 minutes at full rate with link flaps every 30 s (SOAK_SECONDS to shorten).
soak: built
	$(Q)tools/bench/report.sh soak "Soak: full rate with link flaps" tools/soak.sh

bench: bench-mpsc bench-sched bench-e2e bench-line bench-compare bench-forward bench-compare-forward

# --- demo ---------------------------------------------------------------------
# xtx beside the kernel's HTB on a throwaway veth testbed (tools/demo.sh).
demo: built
	$(Q)tools/demo.sh

# --- man pages ----------------------------------------------------------------
# One source each: a tool's page is its --help (tools/man/help2man.sh), the class file's
# docs/config.md (md2man.sh), the rules file's xtx-shape's RULES section.
SBIN_TOOLS := xtx-send xtx-shape xtx-sink xtx-compare xtx-doctor udp-send pkt-send xsk-plain
BIN_TOOLS  := xtx-ctl
MAN_PAGES  := $(SBIN_TOOLS:%=build/man/%.8) $(BIN_TOOLS:%=build/man/%.1) \
	      build/man/xtx-classes.5 build/man/xtx-rules.5
man: $(MAN_PAGES)
build/man/%.8: $(OUT)/bin/% tools/man/help2man.sh
	@mkdir -p $(@D)
	$(Q)tools/man/help2man.sh $< 8 > $@.tmp && mv $@.tmp $@
build/man/%.1: $(OUT)/bin/% tools/man/help2man.sh
	@mkdir -p $(@D)
	$(Q)tools/man/help2man.sh $< 1 > $@.tmp && mv $@.tmp $@
build/man/xtx-classes.5: docs/config.md tools/man/md2man.sh
	@mkdir -p $(@D)
	$(Q)tools/man/md2man.sh $< xtx-classes 5 "the class file of xtx: an HTB tree with fq leaves" > $@.tmp && mv $@.tmp $@
build/man/xtx-rules.5: $(OUT)/bin/xtx-shape tools/man/help2man.sh
	@mkdir -p $(@D)
	$(Q)tools/man/help2man.sh $< 5 RULES > $@.tmp && mv $@.tmp $@

# --- install -----------------------------------------------------------------
SBINDIR ?= $(PREFIX)/sbin
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
UNITDIR ?= $(PREFIX)/lib/systemd/system
install: all man
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(PREFIX)/lib/xtx \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(UNITDIR)
	install -m 755 $(SBIN_TOOLS:%=$(OUT)/bin/%) $(DESTDIR)$(SBINDIR)/
	install -m 755 $(BIN_TOOLS:%=$(OUT)/bin/%) $(DESTDIR)$(BINDIR)/
	install -m 755 tools/testbed $(DESTDIR)$(PREFIX)/lib/xtx/testbed
	install -m 644 $(filter %.1,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(filter %.5,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man5/
	install -m 644 $(filter %.8,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man8/
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' packaging/xtx-shape@.service.in \
		> $(DESTDIR)$(UNITDIR)/xtx-shape@.service
	install -d $(DESTDIR)$(INCDIR)/xtx $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 644 include/xtx/*.h $(DESTDIR)$(INCDIR)/xtx/
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/libxtx.so.$(VERSION)
	ln -sf libxtx.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libxtx.so.0
	ln -sf libxtx.so.0 $(DESTDIR)$(LIBDIR)/libxtx.so
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCDIR@|$(INCDIR)|; s|@VERSION@|$(VERSION)|' \
		userspace/libxtx.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/libxtx.pc

clean:
	rm -rf build
