public import ArgumentParser
import BackgroundRuntime
public import GeoWake

/// `--platform` (and its old name `--profile`): a preset, read without regard to case.
extension Platform.Name: ExpressibleByArgument {
  public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

/// What every command that takes a platform says of it, and does with an app's scenario.
enum PlatformOption {
  /// The help of `--platform`.
  static let help = ArgumentHelp(
    "The phone, with every rule of it (region monitoring, pushes, fetch, the app's runtime): ios (the default), android or android8 (Android 8 and later), as measured phones behave; android-samsung, android8 with Samsung's battery manager (apps unused for 3 days asleep, 16 days stopped); ios-documented or android-documented, as Apple and Google document them; server, the geometric truth (an app on it lives as on iOS). docs/platform-rules.md gives each number's source.",
    valueName: "platform")

  /// `scenario`, read from `path`, on `platform`: its runtime becomes the platform's; a runtime it
  /// names of another lifecycle (an iOS version on Android) gives way to the platform's, with a
  /// warning.
  static func scenario(_ scenario: AppScenario, from path: String, on platform: Platform) -> AppScenario {
    if let named = scenario.namedProfile, let profile = RuntimeProfile.named[named.name], profile.lifecycle != platform.runtime.lifecycle {
      Diagnostics.error(
        "\(path):\(named.line):\(named.column): warning: $.profile: \(named.name) is a runtime of \(profile.lifecycle.rawValue), "
          + "but the platform is \(platform.name.rawValue): its \(platform.runtime.name) runtime applies")
    }
    return platform.adapting(scenario)
  }
}
