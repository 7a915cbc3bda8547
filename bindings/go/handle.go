package a2a

import "runtime"

// owned is the handle plumbing every type owning one library handle shares: the handle P
// (a *C.a2a_x; nil once freed), the library's _free for it, and the cleanup that frees it
// when the owner becomes unreachable without Close. A type embeds it by value and calls own
// once. (Generic over the pointer: cgo's opaque handle types cannot be type arguments.)
type owned[P comparable] struct {
	h       P
	free    func(P)
	cleanup runtime.Cleanup
}

// own hands h to o, embedded in owner: free runs exactly once, at Close or when owner is
// collected (free must not reach owner, or it would never be collected).
func own[O any, P comparable](owner *O, o *owned[P], h P, free func(P)) {
	o.h, o.free = h, free
	o.cleanup = runtime.AddCleanup(owner, free, h)
}

// Close frees the library handle. Calling it twice is harmless.
func (o *owned[P]) Close() error {
	o.release()
	return nil
}

// release frees the handle now (once); afterwards the owner's calls return ErrClosed.
func (o *owned[P]) release() {
	var none P
	if o.h != none {
		o.cleanup.Stop()
		o.free(o.h)
		o.h = none
	}
}
