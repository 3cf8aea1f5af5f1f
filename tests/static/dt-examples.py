#!/usr/bin/python3
# Write each binding's examples as a complete .dts (under a root node with
# one GIC as interrupt parent), so that dtc compiles and dt-validate checks
# them against the bindings.  Usage: dt-examples.py OUTDIR BINDING.yaml...
import os
import sys

import yaml

ROOT = """/dts-v1/;
/ {
	#address-cells = <1>;
	#size-cells = <1>;
	compatible = "eusrv,binding-example";
	model = "binding example";
	interrupt-parent = <&gic>;

	gic: interrupt-controller@f8f01000 {
		compatible = "arm,cortex-a9-gic";
		#interrupt-cells = <3>;
		interrupt-controller;
		reg = <0xf8f01000 0x1000>, <0xf8f00100 0x100>;
	};

%s
};
"""

out = sys.argv[1]
for path in sys.argv[2:]:
    with open(path) as f:
        doc = yaml.safe_load(f)
    base = os.path.basename(path).rsplit(".", 1)[0]
    for i, ex in enumerate(doc.get("examples", [])):
        with open(os.path.join(out, "%s.%d.dts" % (base, i)), "w") as f:
            f.write(ROOT % ex)
