//go:build a2a_pkgconfig_static && !a2a_system

package a2a

// -tags a2a_pkgconfig_static: the installed static library, through pkg-config's
// a2a_core-static.pc (which names liba2a_core.a and the system libraries it needs): the
// program carries the library and needs no liba2a_core at run time.

/*
#cgo pkg-config: a2a_core-static
*/
import "C"
