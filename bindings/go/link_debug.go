//go:build !a2a_release && !a2a_system

package a2a

// Default: the debug library of `cargo build -p a2a-core-ffi` in this repository
// (target/debug, the one scripts/ci/30-c.sh tests), found at link and at run time.

/*
#cgo LDFLAGS: -L${SRCDIR}/../../target/debug -Wl,-rpath,${SRCDIR}/../../target/debug -la2a_core
*/
import "C"
