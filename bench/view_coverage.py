#!/usr/bin/env python3
"""How far each test view of a COLMAP scene lies from the training views.

A test view whose camera sits far from every training camera, or looks in a direction none of them
looks, shows parts of the scene that training never constrained: its PSNR says more about what the
model happens to hold there (floaters, empty space) than about how well it fits the photos. This
prints, for each test view (every 8th image sorted by name, as splatlab splits), the distance to the
nearest training camera centre (and the second nearest) and the smallest angle between its viewing
direction and a training view's, so such views can be named before their figures are read.

    bench/view_coverage.py SCENE_FOLDER        (reads SCENE_FOLDER/sparse/0/images.bin)
"""
import math
import struct
import sys


def read_images_bin(path):
    """{image name: (camera centre, viewing direction)} from a COLMAP images.bin."""
    views = {}
    with open(path, "rb") as f:
        (count,) = struct.unpack("<Q", f.read(8))
        for _ in range(count):
            f.read(4)  # image id
            qw, qx, qy, qz = struct.unpack("<4d", f.read(32))
            t = struct.unpack("<3d", f.read(24))
            f.read(4)  # camera id
            name = bytearray()
            while (c := f.read(1)) != b"\0":
                name += c
            (points,) = struct.unpack("<Q", f.read(8))
            f.read(24 * points)
            # World-to-camera rotation R from the quaternion; centre = -R^T t, direction = R^T (0, 0, 1).
            r = [[1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qw * qz), 2 * (qx * qz + qw * qy)],
                 [2 * (qx * qy + qw * qz), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qw * qx)],
                 [2 * (qx * qz - qw * qy), 2 * (qy * qz + qw * qx), 1 - 2 * (qx * qx + qy * qy)]]
            centre = [-sum(r[k][i] * t[k] for k in range(3)) for i in range(3)]
            direction = [r[2][i] for i in range(3)]
            views[name.decode()] = (centre, direction)
    return views


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    views = read_images_bin(f"{sys.argv[1]}/sparse/0/images.bin")
    names = sorted(views)
    test = names[::8]
    train = [n for n in names if n not in test]
    dist = lambda a, b: math.dist(views[a][0], views[b][0])
    angle = lambda a, b: math.degrees(math.acos(max(-1.0, min(1.0, sum(
        x * y for x, y in zip(views[a][1], views[b][1]))))))
    spacing = sorted(min(dist(a, b) for b in train if b != a) for a in train)
    print(f"{len(train)} training views; nearest-neighbour spacing between them: median "
          f"{spacing[len(spacing) // 2]:.3f}, 90th percentile {spacing[int(0.9 * (len(spacing) - 1))]:.3f}")
    print(f"{'test view':<24} {'nearest train':<24} {'distance':>8} {'2nd':>8} {'min angle':>10}")
    for n in test:
        near = sorted(train, key=lambda b: dist(n, b))
        print(f"{n:<24} {near[0]:<24} {dist(n, near[0]):8.3f} {dist(n, near[1]):8.3f} "
              f"{min(angle(n, b) for b in train):9.1f}°")


if __name__ == "__main__":
    main()
