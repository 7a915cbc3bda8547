//go:build a2a_system

package a2a

// -tags a2a_system: no library path of ours; the library is found through CGO_LDFLAGS
// (e.g. CGO_LDFLAGS="-L$DIR -Wl,-rpath,$DIR") or the system's default library path. The
// header is the repository's (CGO_CFLAGS may name another).

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: -la2a_core
*/
import "C"
