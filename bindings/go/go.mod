module a2a.local/a2a

go 1.24
