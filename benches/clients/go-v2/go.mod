module a2a.local/bench-clients-v2

go 1.25.0

require (
	a2a.local/bench-clients v0.0.0
	github.com/a2aproject/a2a-go/v2 v2.3.1
)

require (
	github.com/google/uuid v1.6.0 // indirect
	golang.org/x/mod v0.33.0 // indirect
)

// The harness's shared package (benches/clients/go/common) and, through its module, the
// Go binding: local modules, replaced here because replace directives apply only in the
// main module.
replace (
	a2a.local/a2a => ../../../bindings/go
	a2a.local/bench-clients => ../go
)
