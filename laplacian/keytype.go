package laplacian

import (
	"fmt"
	"strconv"
	"strings"
)

// KeyTypeError reports node keys of two types in one graph: integer keys
// ("101", "-7") beside others ("two"). Neo4j stores the first as integers
// and the second as strings, so 101 and "101" would be two nodes, and an
// edge list that mixes them is most often a typo that adds a node (and a
// component): the file graph and the load into Neo4j refuse it alike
// (CheckKeyTypes).
//
// It also reports two keys that a reader takes for one node (Same set):
// equal as integers ("027" and "27") or equal but for case ("Alice" and
// "alice"). Both are most often one sensor written two ways, which would
// silently become two nodes (CheckKeyCollisions).
type KeyTypeError struct {
	Key   string // the first key of the other type (or the second of the pair)
	First string // the graph's first key, whose type the others must share
	// Same, when set, is an earlier key that Key collides with.
	Same string
}

// Reason is the error without its key: why Key is refused.
func (e *KeyTypeError) Reason() string {
	if e.Same != "" {
		return fmt.Sprintf("names the same node as %q to a reader (%s), but the two would be two nodes: write every node's key one way", e.Same, collisionKind(e.Same))
	}
	return fmt.Sprintf("is %s while %q, the first key, is %s: node keys must be of one type "+
		"(an integer and a string key are two nodes)", keyKind(e.Key), e.First, keyKind(e.First))
}

func (e *KeyTypeError) Error() string {
	return fmt.Sprintf("laplacian: node key %q: %s", e.Key, e.Reason())
}

// CheckKeyTypes returns a *KeyTypeError when keys are not all of one type
// — all integer-like (decimal digits with an optional sign, within 64
// bits) or none — or when two of them collide (CheckKeyCollisions).
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
	return CheckKeyCollisions(keys)
}

// CheckKeyCollisions returns a *KeyTypeError (Same set) naming the first
// two distinct keys that are equal as integers ("027", "+27", "27") or
// equal but for case ("Alice", "ALICE"): a key written two ways.
func CheckKeyCollisions(keys []string) error {
	seen := make(map[string]string, len(keys))
	for _, k := range keys {
		c := canonicalKey(k)
		if prev, ok := seen[c]; ok && prev != k {
			return &KeyTypeError{Key: k, First: keys[0], Same: prev}
		}
		seen[c] = k
	}
	return nil
}

// canonicalKey is the one spelling of a key that collisions share: an
// integer's decimal form, else the key in lower case.
func canonicalKey(k string) string {
	if v, err := strconv.ParseInt(k, 10, 64); err == nil {
		return strconv.FormatInt(v, 10)
	}
	return strings.ToLower(strings.ToUpper(k))
}

func collisionKind(k string) string {
	if integerLike(k) {
		return "equal as integers"
	}
	return "equal but for case"
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
