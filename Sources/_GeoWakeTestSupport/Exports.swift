@_exported public import SyntheticData
