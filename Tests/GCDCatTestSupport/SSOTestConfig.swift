/// An AWS config whose profile `work` signs in through the `sso_session` `corp`: what the SSO
/// tests of both test targets resolve (the portal and SSO-OIDC answers come from their stubs).
public let ssoSessionTestConfig = """
    [profile work]
    sso_session = corp
    sso_account_id = 123456789012
    sso_role_name = Admin
    [sso-session corp]
    sso_start_url = https://corp.awsapps.com/start
    sso_region = eu-west-1
    """
