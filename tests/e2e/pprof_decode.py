"""Reads pprof's profile.proto (gzip-compressed) with the protocol buffers
wire format alone (no protobuf package): the fields a check needs, by
profile.proto's numbers.  Raises ValueError on anything malformed."""

import gzip


def _varint(data, at):
    value, shift = 0, 0
    while True:
        if at >= len(data) or shift > 63:
            raise ValueError("truncated varint at %d" % at)
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if byte < 0x80:
            return value, at
        shift += 7


def fields(data):
    """[(field number, value)]: an int for a varint, bytes for a
    length-delimited field; other wire types are refused (profile.proto
    uses none)."""
    out, at = [], 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = _varint(data, at)
        elif wire == 2:
            length, at = _varint(data, at)
            if at + length > len(data):
                raise ValueError("field %d runs past its message" % number)
            value, at = data[at:at + length], at + length
        else:
            raise ValueError("wire type %d (field %d) is not in profile.proto" % (wire, number))
        out.append((number, value))
    return out


def _packed(value):
    if isinstance(value, int):
        return [value]
    ints, at = [], 0
    while at < len(value):
        v, at = _varint(value, at)
        ints.append(v)
    return ints


def _signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def read_profile(path):
    """The profile as a dict: strings, sample_types [(type, unit)],
    samples [(location ids, values)], mappings {id: dict}, locations
    {id: (mapping id, address, [function ids])}, functions {id: name},
    period, period_type, default_sample_type, time_nanos, duration_nanos;
    location_lines {id: [line of each of its Line entries]}, function_files
    {id: file name}; sample_labels, one {key string index: num or string
    index} per sample."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    top = fields(data)
    strings = [v.decode("utf-8", "replace") for n, v in top if n == 6]
    if not strings or strings[0] != "":
        raise ValueError("string_table must start with the empty string")
    s = lambda i: strings[i] if 0 <= i < len(strings) else None
    profile = {"strings": strings, "sample_types": [], "samples": [], "mappings": {}, "locations": {},
               "functions": {}, "period": 0, "period_type": None, "default_sample_type": None,
               "time_nanos": 0, "duration_nanos": 0, "location_lines": {}, "function_files": {},
               "sample_labels": []}
    for number, value in top:
        if number == 1:
            f = dict(fields(value))
            profile["sample_types"].append((s(f.get(1, 0)), s(f.get(2, 0))))
        elif number == 2:
            ids, values, labels = [], [], {}
            for n, v in fields(value):
                if n == 1:
                    ids += _packed(v)
                elif n == 2:
                    values += [_signed(x) for x in _packed(v)]
                elif n == 3:
                    label = dict(fields(v))
                    labels[label.get(1, 0)] = label.get(3, label.get(2))
            profile["samples"].append((ids, values))
            profile["sample_labels"].append(labels)
        elif number == 3:
            f = dict(fields(value))
            profile["mappings"][f.get(1, 0)] = {"start": f.get(2, 0), "limit": f.get(3, 0), "offset": f.get(4, 0),
                                                "file": s(f.get(5, 0)), "build_id": s(f.get(6, 0))}
        elif number == 4:
            lf = fields(value)
            f = dict(lf)
            functions = [dict(fields(v)).get(1, 0) for n, v in lf if n == 4]
            profile["locations"][f.get(1, 0)] = (f.get(2, 0), f.get(3, 0), functions)
            profile["location_lines"][f.get(1, 0)] = [dict(fields(v)).get(2, 0) for n, v in lf if n == 4]
        elif number == 5:
            f = dict(fields(value))
            profile["functions"][f.get(1, 0)] = s(f.get(2, 0))
            profile["function_files"][f.get(1, 0)] = s(f.get(4, 0))
        elif number == 9:
            profile["time_nanos"] = value
        elif number == 10:
            profile["duration_nanos"] = value
        elif number == 11:
            f = dict(fields(value))
            profile["period_type"] = (s(f.get(1, 0)), s(f.get(2, 0)))
        elif number == 12:
            profile["period"] = value
        elif number == 14:
            profile["default_sample_type"] = s(value)
    return profile


def totals(profile):
    """{sample type: the sum of its values over all samples}."""
    names = [t for t, _ in profile["sample_types"]]
    sums = dict.fromkeys(names, 0)
    for _, values in profile["samples"]:
        if len(values) != len(names):
            raise ValueError("a sample has %d values for %d types" % (len(values), len(names)))
        for name, v in zip(names, values):
            sums[name] += v
    return sums


def inclusive(profile, function, sample_type):
    """The sum of SAMPLE_TYPE over the samples with FUNCTION in their stack."""
    k = [t for t, _ in profile["sample_types"]].index(sample_type)
    total = 0
    for ids, values in profile["samples"]:
        names = {profile["functions"].get(fid) for lid in ids for fid in profile["locations"].get(lid, (0, 0, []))[2]}
        if function in names:
            total += values[k]
    return total
