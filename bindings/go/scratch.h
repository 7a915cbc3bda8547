// A Client send's out-parameters in C memory (bindings/go, included by the cgo preambles).
//
// One per Client, reused from send to send (clientRes.takeScratch): cgo's pointer check of
// a C address is a range test, while a Go heap struct with pointer fields is walked field by
// field on every call (about 4k instructions per send, and two Go allocations). They cannot
// live on the Go stack instead: the library's empty views carry Rust's dangling pointer 0x1,
// which the stack copier rejects.
#ifndef A2A_GO_SCRATCH_H
#define A2A_GO_SCRATCH_H
#include "a2a_core.h"

struct a2a_go_scratch {
	struct a2a_event event;
	struct a2a_outcome_info info;
};

#endif
