package keyednoise

// Fill writes the keyed noise Z_i of nodes[i] (stream 0) into z[i], from
// the master key, for every sampler version. It is what a central keyed
// release draws and what unmask regenerates. len(z) must equal len(nodes).
func Fill(master *[KeySize]byte, p Params, nodes []string, z []int64) error {
	if len(z) != len(nodes) {
		panic("keyednoise: Fill: len(z) != len(nodes)")
	}
	if err := p.Check(); err != nil {
		return err
	}
	d, err := NewDeriver(master, p)
	if err != nil {
		return err
	}
	g := NewGaussian(p.GridVariance)
	var src Stream
	for i, node := range nodes {
		src.Reset(d.Derive(node, 0))
		z[i] = g.Sample(&src)
	}
	src.Wipe()
	return nil
}

// SensorNoise returns the version 3 noise Z of node (stream 0) from its
// sensor key: the value Fill draws for node from the master key.
func SensorNoise(sensorKey *[KeySize]byte, p Params, node string) (int64, error) {
	if err := p.Check(); err != nil {
		return 0, err
	}
	d, err := NewSensorDeriver(sensorKey, p)
	if err != nil {
		return 0, err
	}
	var src Stream
	src.Reset(d.Derive(node, 0))
	z := NewGaussian(p.GridVariance).Sample(&src)
	src.Wipe()
	return z, nil
}
