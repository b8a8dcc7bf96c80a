import C1nkProbes

extension VoiceProcessing {
    /// CPU the DSP costs with these settings, as % of one core
    /// (`VoiceProcessingCost.measure`).
    public func measureCost(seconds: Double = 20) throws -> Double {
        try VoiceProcessingCost.measure(seconds: seconds) { dsp, probe in configure(dsp.pointer, probe: probe) }
    }
}
