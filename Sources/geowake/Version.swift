/// The version `geowake --version` prints: the release this source is, as tagged in the
/// repository (`git tag`), the same number a package depending on GeoWake asks for.
enum GeoWakeVersion {
  static let text = "1.0.0"
}
