# A stand-in for PyTorch (tests only): records which tensor constructor
# suite_common.task_inputs() called and with what, so its choices can be checked
# without torch installed.
float32, int32, int64 = "float32", "int32", "int64"


class Tensor:
    def __init__(self, desc):
        self.desc = desc

    def __mul__(self, k):
        return Tensor("%s*%g" % (self.desc, k))

    def __add__(self, k):
        return Tensor("%s+%g" % (self.desc, k))

    def contiguous(self):
        return self

    def __repr__(self):
        return self.desc


class Generator:
    def __init__(self, device=None):
        pass

    def manual_seed(self, seed):
        pass


def randn(shape, generator=None, device=None, dtype=None):
    return Tensor("randn%s:%s" % (list(shape), dtype))


def rand(shape, generator=None, device=None, dtype=None):
    return Tensor("rand%s:%s" % (list(shape), dtype))


def randint(lo, hi, shape, generator=None, device=None, dtype=None):
    return Tensor("randint[%d,%d)%s:%s" % (lo, hi, list(shape), dtype))


def full(shape, fill, dtype=None, device=None):
    return Tensor("full%s=%s:%s" % (list(shape), fill, dtype))
