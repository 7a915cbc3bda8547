//go:build !a2a_debug && !a2a_pkgconfig && !a2a_pkgconfig_static && !a2a_system

package a2a

// Default, for development in an a2a-core checkout: the release library of
// `cargo build -p a2a-core-ffi --release` (<repo>/target/release), found at link and at run
// time, and the repository's header. Never the debug build (that is -tags a2a_debug).
// "cannot find -la2a_core" means it is not built: run that command, or install the library
// (scripts/install) and build with -tags a2a_pkgconfig. (The old -tags a2a_release names
// this same default.)

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: -L${SRCDIR}/../../target/release -Wl,-rpath,${SRCDIR}/../../target/release -la2a_core
*/
import "C"
