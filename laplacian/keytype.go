package laplacian

import (
	"fmt"
	"strconv"
)

// KeyTypeError reports node keys of two types in one graph: integer keys
// ("101", "-7") beside others ("two"). Neo4j stores the first as integers
// and the second as strings, so 101 and "101" would be two nodes, and an
// edge list that mixes them is most often a typo that adds a node (and a
// component): the file graph and the load into Neo4j refuse it alike
// (CheckKeyTypes).
type KeyTypeError struct {
	Key   string // the first key of the other type
	First string // the graph's first key, whose type the others must share
}

// Reason is the error without its key: why Key is refused.
func (e *KeyTypeError) Reason() string {
	return fmt.Sprintf("is %s while %q, the first key, is %s: node keys must be of one type "+
		"(an integer and a string key are two nodes)", keyKind(e.Key), e.First, keyKind(e.First))
}

func (e *KeyTypeError) Error() string {
	return fmt.Sprintf("laplacian: node key %q: %s", e.Key, e.Reason())
}

// CheckKeyTypes returns a *KeyTypeError when keys are not all of one type:
// all integer-like (decimal digits with an optional sign, within 64 bits)
// or none.
func CheckKeyTypes(keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	first := integerLike(keys[0])
	for _, k := range keys[1:] {
		if integerLike(k) != first {
			return &KeyTypeError{Key: k, First: keys[0]}
		}
	}
	return nil
}

func integerLike(k string) bool {
	_, err := strconv.ParseInt(k, 10, 64)
	return err == nil
}

func keyKind(k string) string {
	if integerLike(k) {
		return "an integer"
	}
	return "not an integer"
}
