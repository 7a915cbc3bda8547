//go:build a2a_debug && !a2a_pkgconfig && !a2a_pkgconfig_static && !a2a_system

package a2a

// -tags a2a_debug: the debug library of `cargo build -p a2a-core-ffi` (<repo>/target/debug,
// what scripts/ci/50-go.sh tests), found at link and at run time. A debug build is about
// five times slower: it is used only when named.

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: -L${SRCDIR}/../../target/debug -Wl,-rpath,${SRCDIR}/../../target/debug -la2a_core
*/
import "C"
