package sensor

import (
	"encoding/hex"
	"fmt"
)

func fmtAll(v any) string { return fmt.Sprintf("%v %+v %#v %x %s", v, v, v, v, v) }

func hexOf(b []byte) string { return hex.EncodeToString(b) }
