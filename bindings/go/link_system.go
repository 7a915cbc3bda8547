//go:build a2a_system

package a2a

// -tags a2a_system: no search path of ours; the library is found through CGO_LDFLAGS
// (e.g. CGO_LDFLAGS="-L$DIR -Wl,-rpath,$DIR"), pkg-config output, or the system's default
// library path.

/*
#cgo LDFLAGS: -la2a_core
*/
import "C"
