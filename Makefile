# chameleon - one hand-written Makefile.
#
#   make            release build into build/ (rules core, perft, server,
#                   rules.wasm)
#   make run        install what is missing, build, start the server
#   make test       install what is missing, build with ASan+UBSan, run every test
#   make bench      measure speed (perft, server) and record it in BENCHMARKS.md
#   make debug      sanitizer build into build/debug/
#   make fuzz       build the libFuzzer targets (tests/fuzz/) into build/fuzz/ and
#                   run each for FUZZ_SECONDS (default 60) from its corpus
#   make format     clang-format every C file (style in .clang-format)
#   make clean      remove build/
#   make install    install the server, chameleon-engine, the web client,
#                   rules.wasm, the migrations and (if none is there) the
#                   configuration: PREFIX (/usr/local), DESTDIR, SYSCONFDIR (/etc)
#   make deb        the Debian package (debian/) into build/deb/
#
# Layers (each folder only uses the ones before it):
#   common/    rules core, C11 + libc only        -> libcommon.a
#   protocol/  JSON codec on jansson               -> libprotocol.a
#   server/    libuv, SQLite, libpq, sodium         -> libcore.a (all but net/net.c,
#                                                       net/net_http.c, net/net_guard.c,
#                                                       main.c, engine_main.c)
#              + libwebsockets (net.c, net_http.c, net_guard.c: it defines recv) + main.c -> chameleon
#              engine_main.c + protocol/uci.c        -> chameleon-engine (UCI, pthreads)
# server/ is itself in layers, one folder each, lowest first (SERVER_LAYERS):
# a folder's files are compiled with -I for their own folder and the ones
# below it only, so that including a header of a layer above fails to build
# (calls upward go through callbacks main.c registers); main.c sees all.
# The unit tests link libcore.a + libprotocol.a + libcommon.a without
# libwebsockets: rooms, the lobby and identities send through the session
# sink (session.h), which a test replaces with its own.

BUILD   := build
# Compilations at once for make test's and make run's builds: one a core.
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
DBG     := $(BUILD)/debug
FUZZ    := $(BUILD)/fuzz
DEPS_SCRIPT := deploy/install-deps.sh

WARN    := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
DEFS    := -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
SERVER_LAYERS := base net store people notify game cluster front
INC     := -Icommon -Iprotocol $(addprefix -Iserver/,$(SERVER_LAYERS))
# The release build has no assert(): no input reaches an abort there; the
# sanitizer build (SAN: make test) keeps them, with CHAMELEON_CHECKS' own.
OPT     := -O2 -g -DNDEBUG
SAN     := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all \
           -DCHAMELEON_CHECKS
CFLAGS_ALL = $(WARN) $(DEFS) $(INC) $(CFLAGS)

PKGS        := libwebsockets libuv jansson sqlite3 libpq libsodium libcrypto libcurl liboath
CORE_PKGS   := libuv jansson sqlite3 libpq libsodium libcrypto libcurl liboath
PKG_LIBS     = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CORE_LIBS    = $(shell pkg-config --libs $(CORE_PKGS) 2>/dev/null)
PKG_CFLAGS   = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
CMOCKA_LIBS  = $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)
# sd_notify (Type=notify, the watchdog): the server binary only.
SYSTEMD_LIBS = $(shell pkg-config --libs libsystemd 2>/dev/null || echo -lsystemd)

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
DATADIR    ?= $(PREFIX)/share/chameleon
SYSCONFDIR ?= /etc
DOCDIR     ?= $(PREFIX)/share/doc/chameleon

COMMON_SRC   := $(wildcard common/*.c)
PROTOCOL_SRC := $(wildcard protocol/*.c)
NET_SRC      := server/net/net.c server/net/net_http.c server/net/net_guard.c
ENGINE_MAIN  := server/engine_main.c
CORE_SRC     := $(filter-out $(NET_SRC),$(wildcard server/*/*.c))
# What the fuzz targets reach of server/ (the API's accounts and store, the
# conditional lines' checker): the fuzz build compiles only these.
FUZZ_CORE_SRC := $(filter server/base/% server/store/% server/people/% server/game/cond.c,$(CORE_SRC))
UNIT_SRC     := $(wildcard tests/unit/test_*.c)
TOOL_SRC     := $(wildcard tests/tools/*.c)
FUZZ_SRC     := $(wildcard tests/fuzz/fuzz_*.c)

# Object lists per mode.
objs = $(patsubst %.c,$(1)/obj/%.o,$(2))

REL_LIBS = $(BUILD)/libcore.a $(BUILD)/libprotocol.a $(BUILD)/libcommon.a
DBG_LIBS = $(DBG)/libcore.a $(DBG)/libprotocol.a $(DBG)/libcommon.a

SERVER_BIN := $(if $(wildcard server/main.c),$(BUILD)/chameleon)
DBG_SERVER_BIN := $(if $(wildcard server/main.c),$(DBG)/chameleon)
UNIT_BINS  := $(patsubst tests/unit/%.c,$(DBG)/tests/%,$(UNIT_SRC))
TOOL_BINS  := $(patsubst tests/tools/%.c,$(BUILD)/%,$(TOOL_SRC))
FUZZ_BINS  := $(patsubst tests/fuzz/%.c,$(FUZZ)/%,$(FUZZ_SRC))

.PHONY: all run test chaos bench debug fuzz fuzz-build format format-check clean deps deps-test install deb
.DEFAULT_GOAL := all

all: $(BUILD)/perft $(SERVER_BIN) $(BUILD)/chameleon-engine $(TOOL_BINS) $(BUILD)/rules.wasm

debug: $(DBG)/perft $(DBG_SERVER_BIN) $(DBG)/chameleon-engine $(UNIT_BINS)

deps:
	@sh $(DEPS_SCRIPT) --build

deps-test:
	@sh $(DEPS_SCRIPT) --test

# make run: the server when it exists, else the perft tool on Ultima.
run: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@if [ -x $(BUILD)/chameleon ]; then \
	    exec $(BUILD)/chameleon --host 127.0.0.1 --port $${PORT:-8080} --db $${DB:-chameleon.db} --web-root web-client; \
	else \
	    echo "The server is not built yet; running the rules core instead:"; \
	    $(BUILD)/perft ultima 3 --divide; \
	fi

test: deps-test
	@$(MAKE) --no-print-directory -j$(JOBS) all debug fuzz-build
	@sh tests/run.sh

fuzz-build: $(FUZZ_BINS)

# Each target for FUZZ_SECONDS from its checked-in corpus and what earlier
# runs learnt (build/fuzz/work); make test runs them briefly from the
# checked-in corpus alone (tests/fuzz/run.sh).
FUZZ_SECONDS ?= 60
fuzz: deps-test
	@$(MAKE) --no-print-directory fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_KEEP=1 sh tests/fuzz/run.sh

# The chaos player (tests/chaos/) for CHAOS_SECONDS, default 600 (make test
# runs it 45 s); CHAOS_SEED=<n> repeats a run.
CHAOS_SECONDS ?= 600
chaos: deps-test
	@$(MAKE) --no-print-directory all debug
	@CHAOS_SECONDS=$(CHAOS_SECONDS) sh tests/chaos/run.sh

bench: deps
	@$(MAKE) --no-print-directory all
	@sh tests/bench/run.sh

# The installed server finds DATADIR next to its own directory
# (config_datadir: BINDIR/../share/chameleon), so DESTDIR trees run as well;
# a DATADIR elsewhere needs web-root, wasm and migrations in the
# configuration (or -DCHAMELEON_DATADIR=... in CFLAGS).
install: $(BUILD)/chameleon $(BUILD)/chameleon-engine $(BUILD)/rules.wasm
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/migrations $(DESTDIR)$(SYSCONFDIR)/chameleon $(DESTDIR)$(DOCDIR)
	install -m 755 $(BUILD)/chameleon $(BUILD)/chameleon-engine $(DESTDIR)$(BINDIR)/
	install -m 644 $(BUILD)/rules.wasm $(DESTDIR)$(DATADIR)/
	for e in migrations/*/; do \
	    install -d $(DESTDIR)$(DATADIR)/$$e && install -m 644 $$e*.sql $(DESTDIR)$(DATADIR)/$$e || exit 1; \
	done
	cp -R web-client $(DESTDIR)$(DATADIR)/
	install -m 644 deploy/chameleon.service deploy/chameleon@.service deploy/nginx.conf \
	    deploy/nginx-nodes.conf deploy/nginx-proxy.conf $(wildcard docs/OPERATING.md) $(DESTDIR)$(DOCDIR)/
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/chameleon/chameleon.conf ]; then \
	    echo "install: keeping $(DESTDIR)$(SYSCONFDIR)/chameleon/chameleon.conf"; \
	else \
	    install -m 644 deploy/chameleon.conf $(DESTDIR)$(SYSCONFDIR)/chameleon/; \
	fi

# The package is built from a copy of the sources in build/deb/ (so that
# dpkg-buildpackage's output lands there, not above the checkout).
DEB_SRC := $(BUILD)/deb/chameleon
deb:
	@sh $(DEPS_SCRIPT) --package
	rm -rf $(BUILD)/deb && mkdir -p $(DEB_SRC)
	tar cf - Makefile README.md common protocol server web-client migrations deploy debian \
	    $(wildcard docs) --exclude=node_modules | tar xf - -C $(DEB_SRC)
	cd $(DEB_SRC) && DEB_BUILD_OPTIONS="noddebs nocheck parallel=$(JOBS)" dpkg-buildpackage -b -us -uc
	@ls $(BUILD)/deb/*.deb

format:
	clang-format -i $(wildcard common/*.[ch] protocol/*.[ch] server/*.[ch] server/*/*.[ch] tests/*/*.[ch])

format-check:
	clang-format --dry-run --Werror $(wildcard common/*.[ch] protocol/*.[ch] server/*.[ch] server/*/*.[ch] tests/*/*.[ch])

clean:
	rm -rf $(BUILD)

# --- objects ---------------------------------------------------------------
# A server folder's include path: common/, protocol/, itself and the
# folders below it in SERVER_LAYERS.
layers_upto = $(if $(filter $(1),$(firstword $(2))),$(1),$(firstword $(2)) $(call layers_upto,$(1),$(wordlist 2,99,$(2))))
define LAYER_INC
$(BUILD)/obj/server/$(1)/%.o: INC := -Icommon -Iprotocol $(addprefix -Iserver/,$(call layers_upto,$(1),$(SERVER_LAYERS)))
$(DBG)/obj/server/$(1)/%.o: INC := -Icommon -Iprotocol $(addprefix -Iserver/,$(call layers_upto,$(1),$(SERVER_LAYERS)))
$(FUZZ)/obj/server/$(1)/%.o: INC := -Icommon -Iprotocol $(addprefix -Iserver/,$(call layers_upto,$(1),$(SERVER_LAYERS)))
endef
$(foreach l,$(SERVER_LAYERS),$(eval $(call LAYER_INC,$(l))))

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(OPT) $(if $(filter common/%,$<),,$(PKG_CFLAGS)) -MMD -MP -c $< -o $@

$(DBG)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SAN) $(if $(filter common/%,$<),,$(PKG_CFLAGS)) -MMD -MP -c $< -o $@

# The fuzz build: Debian's clang with libFuzzer's coverage, ASan and UBSan on
# every layer (the targets link their own main from libFuzzer).
FUZZ_CC  := clang
FUZZ_SAN := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all \
            -DCHAMELEON_CHECKS
$(FUZZ)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CFLAGS_ALL) $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
	    $(if $(filter common/%,$<),,$(PKG_CFLAGS)) -MMD -MP -c $< -o $@

# --- libraries (an empty archive is fine while a layer has no code) --------
define LIBRARY
$(1)/lib$(2).a: $(call objs,$(1),$(3))
	@mkdir -p $$(dir $$@)
	rm -f $$@
	ar rcs $$@ $$^
endef
$(eval $(call LIBRARY,$(BUILD),common,$(COMMON_SRC)))
$(eval $(call LIBRARY,$(BUILD),protocol,$(PROTOCOL_SRC)))
$(eval $(call LIBRARY,$(BUILD),core,$(CORE_SRC)))
$(eval $(call LIBRARY,$(DBG),common,$(COMMON_SRC)))
$(eval $(call LIBRARY,$(DBG),protocol,$(PROTOCOL_SRC)))
$(eval $(call LIBRARY,$(DBG),core,$(CORE_SRC)))
$(eval $(call LIBRARY,$(FUZZ),common,$(COMMON_SRC)))
$(eval $(call LIBRARY,$(FUZZ),protocol,$(PROTOCOL_SRC)))
$(eval $(call LIBRARY,$(FUZZ),core,$(FUZZ_CORE_SRC)))

# --- programs ----------------------------------------------------------------
$(BUILD)/perft: $(BUILD)/obj/tests/perft/perft.o $(BUILD)/libcommon.a
	$(CC) $(OPT) -o $@ $^

$(DBG)/perft: $(DBG)/obj/tests/perft/perft.o $(DBG)/libcommon.a
	$(CC) $(SAN) -o $@ $^

$(BUILD)/chameleon: $(BUILD)/obj/server/main.o $(call objs,$(BUILD),$(NET_SRC)) $(REL_LIBS)
	$(CC) $(OPT) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(SYSTEMD_LIBS) -lm

$(DBG)/chameleon: $(DBG)/obj/server/main.o $(call objs,$(DBG),$(NET_SRC)) $(DBG_LIBS)
	$(CC) $(SAN) -o $@ $^ $(PKG_LIBS) $(SYSTEMD_LIBS) -lm

# The UCI engine: the rules core, the search and protocol/uci.c; no server
# libraries.
$(BUILD)/chameleon-engine: $(BUILD)/obj/$(ENGINE_MAIN:.c=.o) $(BUILD)/libprotocol.a $(BUILD)/libcommon.a
	$(CC) $(OPT) $(LDFLAGS) -o $@ $^ -lpthread -lm

$(DBG)/chameleon-engine: $(DBG)/obj/$(ENGINE_MAIN:.c=.o) $(DBG)/libprotocol.a $(DBG)/libcommon.a
	$(CC) $(SAN) -o $@ $^ -lpthread -lm

# The rules core and the engine for the browser (common/wasm.h): Debian's
# clang, lld and wasi-libc; a reactor module (no main), no runtime beyond
# wasi-libc.
WASM_CC := clang
$(BUILD)/rules.wasm: $(COMMON_SRC) $(wildcard common/*.h)
	@mkdir -p $(dir $@)
	$(WASM_CC) --target=wasm32-wasi -mexec-model=reactor $(WARN) -D_DEFAULT_SOURCE -Icommon -O2 \
	    -o $@ $(COMMON_SRC)

# Helper programs for tests and benchmarks (load generators, reference
# generators, the match tool): release build, linked with every layer.
$(BUILD)/%: $(BUILD)/obj/tests/tools/%.o $(REL_LIBS)
	$(CC) $(OPT) -o $@ $^ $(PKG_LIBS) -lpthread -lm

# The relay bench (tests/bench/relay.bench.sh): Redis pub/sub against
# PostgreSQL LISTEN/NOTIFY between two nodes. Not in `all`: hiredis and libpq
# are the bench's own (install-deps.sh --test), not the server's yet.
RELAY_PKGS := libuv hiredis libpq
$(BUILD)/relay_bench: tests/bench/relay_bench.c
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(WARN) $(DEFS) $(shell pkg-config --cflags $(RELAY_PKGS)) $(CFLAGS) $(LDFLAGS) \
	    -o $@ $< $(shell pkg-config --libs $(RELAY_PKGS)) -lpthread

# Unit tests: no net.o, no libwebsockets.
$(DBG)/tests/%: $(DBG)/obj/tests/unit/%.o $(DBG_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(SAN) -o $@ $^ $(CMOCKA_LIBS) $(CORE_LIBS) -lpthread -lm

# Fuzz targets: every layer (fuzz_api checks bodies with server/people/accounts.c).
$(FUZZ)/fuzz_%: $(FUZZ)/obj/tests/fuzz/fuzz_%.o $(FUZZ)/libcore.a $(FUZZ)/libprotocol.a $(FUZZ)/libcommon.a
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(CORE_LIBS) -lpthread -lm

# (not the Debian package's copy of the tree in build/deb: its .d name the
# same objects by the same relative paths)
-include $(shell find $(BUILD) -path $(BUILD)/deb -prune -o -name '*.d' -print 2>/dev/null)
