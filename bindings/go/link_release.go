//go:build a2a_release && !a2a_system

package a2a

// -tags a2a_release: the library of `cargo build -p a2a-core-ffi --release` (target/release).

/*
#cgo LDFLAGS: -L${SRCDIR}/../../target/release -Wl,-rpath,${SRCDIR}/../../target/release -la2a_core
*/
import "C"
