//go:build a2a_pkgconfig && !a2a_pkgconfig_static && !a2a_system

package a2a

// -tags a2a_pkgconfig: the installed library (scripts/install --prefix DIR), header and
// flags from pkg-config's a2a_core.pc (PKG_CONFIG_PATH=DIR/lib/pkgconfig unless DIR is a
// prefix pkg-config searches). At run time the loader must find liba2a_core.so.0.1:
// a prefix on its path, CGO_LDFLAGS="-Wl,-rpath,DIR/lib", or LD_LIBRARY_PATH.

/*
#cgo pkg-config: a2a_core
*/
import "C"
