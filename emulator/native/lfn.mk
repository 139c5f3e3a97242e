# Included by the Makefiles of the native lab programs (sampler, timing, traffic, transports):
# one place for the compiler settings and for liblfn (lfn_common.c), which every program links.
# Static, so the lab VM image needs no shared libraries.
LFN_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
LFN_SRC := $(LFN_DIR)/lfn_common.c
LFN_HDR := $(wildcard $(LFN_DIR)/*.h)
# Rebuild when this file or the including Makefile changes.
LFN_DEPS := $(LFN_SRC) $(LFN_HDR) $(LFN_DIR)/lfn.mk Makefile

ifeq ($(origin CC),default)
CC = gcc
endif
ifeq ($(origin CXX),default)
CXX = g++
endif
CFLAGS ?= -O2
CFLAGS += -std=gnu11 -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes
CXXFLAGS ?= -O2
CXXFLAGS += -std=gnu++17 -Wall -Wextra -Wshadow -Wformat=2
CPPFLAGS += -I$(LFN_DIR)
LDFLAGS += -static
LDLIBS += -lm

# Compiles and links the .c prerequisites (and liblfn) in one step to a private name, then
# renames it: a concurrent build, or a test executing the old binary, never sees a half-written
# file (and there are no shared object files to be half-written either).
LFN_LINK_C = $(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@.$$$$.tmp $(filter %.c,$^) $(LDLIBS) && mv -f $@.$$$$.tmp $@
