//go:build gstacks

// The goroutines' stacks, read from the runtime's list of goroutines (runtime.allgs, through
// go:linkname: build with -ldflags=-checklinkname=0). The offsets are those of Go 1.24-1.26's
// runtime.g on 64-bit targets (stack.lo at 0, stack.hi at 8, sched.sp at 56, goid at 152);
// another Go release may move them. A diagnostic only: never part of a measured run.

package main

import (
	"fmt"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"unsafe"
)

//go:linkname allgs runtime.allgs
var allgs []unsafe.Pointer

// gstacks prints, per goroutine kind (its creator and the first function not of the
// runtime where it waits), how many goroutines there are, their stack size and the bytes in
// use (hi - sched.sp; the runtime halves a stack at a collection only when that plus 800
// bytes is under a quarter of it, so a 4 KiB stack using more than 224 bytes stays).
func gstacks(label string) {
	buf := make([]byte, 64<<20)
	buf = buf[:runtime.Stack(buf, true)]
	kind := map[uint64]string{}
	re := regexp.MustCompile(`(?m)^goroutine (\d+) \[[^\]]*\]:\n((?:.*\n)*?)\n`)
	for _, m := range re.FindAllSubmatch(append(buf, '\n', '\n'), -1) {
		id, _ := strconv.ParseUint(string(m[1]), 10, 64)
		lines := strings.Split(strings.TrimSpace(string(m[2])), "\n")
		created := ""
		for _, l := range lines {
			if strings.HasPrefix(l, "created by ") {
				created = strings.Fields(strings.TrimPrefix(l, "created by "))[0]
			}
		}
		top := ""
		for i := 0; i < len(lines); i += 2 {
			f := lines[i]
			if !strings.HasPrefix(f, "runtime.") && !strings.HasPrefix(f, "internal/") && !strings.HasPrefix(f, "iter.") {
				top = f[:strings.LastIndex(f, "(")]
				break
			}
		}
		kind[id] = created + " @ " + top
	}
	type agg struct{ n, size, used int }
	per := map[string]*agg{}
	for _, gp := range allgs {
		lo := *(*uintptr)(gp)
		hi := *(*uintptr)(unsafe.Add(gp, 8))
		sp := *(*uintptr)(unsafe.Add(gp, 56))
		goid := *(*uint64)(unsafe.Add(gp, 152))
		k, ok := kind[goid]
		if !ok || hi == 0 {
			continue
		}
		a := per[k]
		if a == nil {
			a = &agg{}
			per[k] = a
		}
		a.n++
		a.size += int(hi - lo)
		if sp > lo && sp <= hi {
			a.used += int(hi - sp)
		}
	}
	keys := make([]string, 0, len(per))
	for k := range per {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		a := per[k]
		fmt.Printf("%s: %4d g  stack %6.0f B each, used %5.0f B each  %s\n", label, a.n, float64(a.size)/float64(a.n), float64(a.used)/float64(a.n), k)
	}
}

func init() { gstacksHook = gstacks }
