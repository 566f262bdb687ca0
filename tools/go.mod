// The linters scripts/test.sh runs, pinned and verified by go.sum:
// go tool -modfile=tools/go.mod staticcheck|errcheck|ineffassign|gocognit.
// Update with: cd tools && go get -tool MODULE@VERSION
module github.com/graphcloak/graphcloak/tools

go 1.26.8

tool (
	github.com/gordonklaus/ineffassign
	github.com/kisielk/errcheck
	github.com/uudashr/gocognit/cmd/gocognit
	honnef.co/go/tools/cmd/staticcheck
)

require (
	github.com/BurntSushi/toml v1.4.1-0.20240526193622-a339e1f7089c // indirect
	github.com/gordonklaus/ineffassign v0.2.0 // indirect
	github.com/kisielk/errcheck v1.30.0 // indirect
	github.com/uudashr/gocognit v1.3.0 // indirect
	golang.org/x/exp/typeparams v0.0.0-20231108232855-2478ac86f678 // indirect
	golang.org/x/mod v0.41.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/tools v0.51.0 // indirect
	honnef.co/go/tools v0.8.2 // indirect
)
